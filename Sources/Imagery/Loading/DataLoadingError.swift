/// Why the bytes of a source could not be loaded.
///
/// Every case names the source (URLs without their query, so presigned signatures and
/// tokens stay out of logs) and what was wrong:
///
/// ```swift
/// do {
///     _ = try await pipeline.response(for: request)
/// } catch .loadingFailed(.notFound(let source)) {
///     print("gone: \(source)")
/// } catch {
///     print(error)   // "HTTP 503 from https://cdn.example.com/a.jpg?…"
/// }
/// ```
public enum DataLoadingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// HTTP 404 or 410, or a file that does not exist.
    case notFound(source: String)
    /// Any other non-2xx HTTP status.
    case httpStatus(Int, source: String)
    /// The response is larger than the configured maximum.
    case tooLarge(source: String, limit: Int)
    /// No byte arrived within the configured timeout.
    case timedOut(source: String)
    /// The connection failed (refused, reset, DNS, TLS): `detail` is the system's reason.
    case connectionFailed(source: String, detail: String)
    /// The URL's scheme is not one this loader reads, or the URL is malformed.
    case unsupportedSource(String)
    /// A redirect was not followed: a loop, more than the loader allows, or to a scheme other
    /// than http(s). Permanent: retrying would only repeat the chain.
    case redirectRefused(source: String, detail: String)
    /// A file exists but could not be read.
    case fileUnreadable(path: String, detail: String)
    /// A custom source's closure threw; `detail` describes its error.
    case customSourceFailed(source: String, detail: String)
    /// A credential could not be obtained (the ``TokenProvider``'s refresh failed).
    case authorizationFailed(source: String, detail: String)
    /// A client-side encrypted source could not be decrypted: a format the loader does not
    /// decrypt, metadata that does not parse, or a body that fails authentication. Permanent:
    /// the same bytes would fail again. `detail` never names a key.
    case decryptionFailed(source: String, detail: String)
    /// The load was cancelled.
    case cancelled

    /// Whether retrying might succeed: connection failures (a refused or timed-out connect)
    /// and 5xx. Never 4xx, and never a timeout once the source was reached: a source that
    /// trickles its body would only trickle again, each time for the whole deadline.
    public var isTransient: Bool {
        switch self {
        case .connectionFailed: true
        case let .httpStatus(status, _): (500...599).contains(status)
        default: false
        }
    }

    /// Every ``kind`` there is, for metrics that are made once.
    static let allKinds = [
        "not_found", "http_5xx", "http_4xx", "too_large", "timed_out", "connection", "unsupported_source",
        "redirect", "file_unreadable", "custom_source", "authorization", "decryption", "cancelled",
    ]

    /// A short, stable name for the kind of failure, for statistics and metrics dimensions.
    public var kind: String {
        switch self {
        case .notFound: "not_found"
        case .httpStatus(let status, _): status >= 500 ? "http_5xx" : "http_4xx"
        case .tooLarge: "too_large"
        case .timedOut: "timed_out"
        case .connectionFailed: "connection"
        case .unsupportedSource: "unsupported_source"
        case .redirectRefused: "redirect"
        case .fileUnreadable: "file_unreadable"
        case .customSourceFailed: "custom_source"
        case .authorizationFailed: "authorization"
        case .decryptionFailed: "decryption"
        case .cancelled: "cancelled"
        }
    }

    public var description: String {
        switch self {
        case let .notFound(source): "not found: \(source)"
        case let .httpStatus(status, source): "HTTP \(status) from \(source)"
        case let .tooLarge(source, limit): "response from \(source) exceeds the \(limit)-byte limit"
        case let .timedOut(source): "timed out loading \(source)"
        case let .connectionFailed(source, detail): "connection failed for \(source): \(detail)"
        case let .unsupportedSource(source): "unsupported source: \(source)"
        case let .redirectRefused(source, detail): "redirect from \(source) refused: \(detail)"
        case let .fileUnreadable(path, detail): "cannot read \(path): \(detail)"
        case let .customSourceFailed(source, detail): "\(source) failed: \(detail)"
        case let .authorizationFailed(source, detail): "no credential for \(source): \(detail)"
        case let .decryptionFailed(source, detail): "cannot decrypt \(source): \(detail)"
        case .cancelled: "cancelled"
        }
    }
}
