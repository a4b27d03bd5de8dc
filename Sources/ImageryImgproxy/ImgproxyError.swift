/// Why an imgproxy URL was refused, before any work: which part was wrong, and one short line
/// that names it (an option, the signature, the extension) and never a key or a source's query.
///
/// ```swift
/// do {
///     let options = try ImgproxyOptions(segments: ["w:abc"])
/// } catch {
///     print(error.kind, error.message)   // invalidOption "invalid option w: abc is not a valid number"
/// }
/// ```
public struct ImgproxyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The part of the URL that was refused.
    public enum Kind: Sendable, Hashable {
        /// The path's shape: missing parts, a bad source encoding.
        case invalidPath
        /// An option: unknown, a wrong argument count, a value out of range.
        case invalidOption
        /// The signature did not match any key.
        case invalidSignature
        /// An extension or `format` this build cannot write.
        case unsupportedFormat
    }

    /// The part that was refused.
    public var kind: Kind
    /// One short line for the response body.
    public var message: String

    /// An error of `kind` with `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
