import Foundation
import Imagery

/// An imgproxy request path split into its parts, before anything is checked:
/// `/{signature}/{options…}/{base64url source}[.{ext}]` or
/// `/{signature}/{options…}/plain/{percent-encoded source}[@{ext}]`.
///
/// Options end at the first segment without a `:`, as in imgproxy; that segment starts the
/// source. A base64 source may be split by `/` (imgproxy allows it for long URLs).
///
/// ```swift
/// let path = try ImgproxyPath(parsing: "/unsafe/rs:fit:300:300/plain/https://example.com/a.jpg@webp")
/// path.options   // ["rs:fit:300:300"]
/// path.source    // "https://example.com/a.jpg"
/// path.format    // .webp
/// ```
public struct ImgproxyPath: Sendable, Hashable {
    /// How a source is written in the path.
    public enum SourceEncoding: Sendable, Hashable {
        /// URL-safe base64 without padding; the extension follows a `.`.
        case base64
        /// `plain/` and the percent-encoded URL; the extension follows an `@`.
        case plain
    }

    /// The first segment, as sent.
    public var signature: String
    /// What the signature covers: the path after the signature segment, leading `/` included.
    public var signedPart: String
    /// The option segments, in order, still unparsed (`rs:fit:300:200`).
    public var options: [String]
    /// The decoded source URL (`http://…`, `local:///…`).
    public var source: String
    /// The extension asked for, lowercased, if any (`webp`; `tiff` is kept for the caller to refuse).
    public var fileExtension: String?

    /// Splits `path` (no query: imgproxy's URLs carry everything in the path).
    ///
    /// - Throws: ``ImgproxyError/Kind/invalidPath`` for a path without a signature, options and
    ///   source, or a source that is not valid base64url or percent-encoding.
    public init(parsing path: String) throws(ImgproxyError) {
        try self.init(parsing: path, rules: ImgproxyOptionRules())
    }

    /// Splits `path` under a server's `rules`: with ``ImgproxyOptionRules/onlyPresets``, a
    /// segment that names a preset is an option segment though it has no `:`.
    ///
    /// ```swift
    /// let path = try ImgproxyPath(parsing: "/sig/thumb/plain/https://example.com/a.jpg", rules: rules)
    /// path.options   // ["thumb"]
    /// ```
    public init(parsing path: String, rules: ImgproxyOptionRules) throws(ImgproxyError) {
        guard path.hasPrefix("/") else { throw ImgproxyError(.invalidPath, "path: must start with /") }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 2, !segments[0].isEmpty else {
            throw ImgproxyError(.invalidPath, "path: expected /{signature}/{options}/{source}")
        }
        signature = String(segments[0])
        var index = 1
        var options: [String] = []
        // A proxy may percent-encode the option separator; imgproxy reads `%3A` as `:`.
        while index < segments.count, let option = Self.option(segments[index]) ?? (rules.isBarePreset(segments[index]) ? String(segments[index]) : nil) {
            options.append(option)
            index += 1
        }
        self.options = options
        let rest = segments[index...]
        guard let first = rest.first, !first.isEmpty else { throw ImgproxyError(.invalidPath, "source: missing") }
        signedPart = "/" + (options + rest.map(String.init)).joined(separator: "/")

        if first == "plain" {
            var encoded = rest.dropFirst().joined(separator: "/")
            if let at = encoded.lastIndex(of: "@") {
                fileExtension = String(encoded[encoded.index(after: at)...]).lowercased()
                encoded = String(encoded[..<at])
            }
            guard !encoded.isEmpty, let source = encoded.removingPercentEncoding else {
                throw ImgproxyError(.invalidPath, "source: not a valid percent-encoded URL")
            }
            self.source = source
            return
        }
        if first == "enc" { throw ImgproxyError(.invalidPath, "source: encrypted sources are not supported") }

        var encoded = rest.joined()
        if let dot = encoded.lastIndex(of: ".") {
            fileExtension = String(encoded[encoded.index(after: dot)...]).lowercased()
            encoded = String(encoded[..<dot])
        }
        guard let bytes = Base64URL.decode(encoded), let source = String(validating: bytes, as: UTF8.self), !source.isEmpty else {
            throw ImgproxyError(.invalidPath, "source: not valid base64url")
        }
        self.source = source
    }

    /// The unsigned path for `options` and `source`: what ``ImgproxySigner`` signs and what
    /// follows the signature segment.
    ///
    /// ```swift
    /// ImgproxyPath.unsigned(options: ["w:300"], source: "https://example.com/a.jpg", format: .webp)
    /// // "/w:300/aHR0cHM6Ly9leGFtcGxlLmNvbS9hLmpwZw.webp"
    /// ```
    public static func unsigned(
        options: [String], source: String, format: ImageFormat? = nil, encoding: SourceEncoding = .base64
    ) -> String {
        let prefix = "/" + options.joined(separator: "/") + "/"
        switch encoding {
        case .base64:
            return prefix + Base64URL.encode(Array(source.utf8)) + (format.map { "." + $0.imgproxyExtension } ?? "")
        case .plain:
            let encoded = source.addingPercentEncoding(withAllowedCharacters: plainAllowed) ?? source
            return prefix + "plain/" + encoded + (format.map { "@" + $0.imgproxyExtension } ?? "")
        }
    }

    /// What a plain source may carry unencoded: URL characters, minus imgproxy's `@` (the
    /// extension), `%`, `?` and `#`.
    private static let plainAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.insert(charactersIn: ":")
        allowed.remove(charactersIn: "@%?#")
        return allowed
    }()

    /// `segment` as an option segment (with `%3A` read as `:`), or `nil` when it starts the source.
    private static func option(_ segment: Substring) -> String? {
        if segment.contains(":") { return String(segment) }
        guard segment.contains("%3A") || segment.contains("%3a") else { return nil }
        return segment.replacingOccurrences(of: "%3A", with: ":").replacingOccurrences(of: "%3a", with: ":")
    }
}
