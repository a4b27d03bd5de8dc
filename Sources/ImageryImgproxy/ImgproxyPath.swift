import Foundation
import Imagery

/// An imgproxy request path split into its parts, before anything is checked:
/// `/{signature}/{options…}/{base64url source}[.{ext}]`,
/// `/{signature}/{options…}/plain/{percent-encoded source}[@{ext}]` or
/// `/{signature}/{options…}/enc/{encrypted source}[.{ext}]`.
///
/// Options end at the first segment without the arguments separator (`:`), as in imgproxy;
/// that segment starts the source. A base64 or encrypted source may be split by `/` (imgproxy
/// allows it for long URLs), and with ``ImgproxyOptionRules/base64SourcesIncludeFilename`` its
/// last segment is a file name for search engines, dropped.
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
        /// `enc/` and the URL encrypted by ``ImgproxySourceCipher``; the extension follows a `.`.
        case encrypted
    }

    /// The first segment, as sent.
    public var signature: String
    /// What the signature covers: the path after the signature segment, leading `/` included.
    public var signedPart: String
    /// The option segments, in order, still unparsed (`rs:fit:300:200`).
    public var options: [String]
    /// The decoded source URL (`http://…`, `local:///…`); for an ``SourceEncoding/encrypted``
    /// source, the encrypted text as sent (base64url, its `/` splits removed), which
    /// ``ImgproxySourceCipher/decrypt(_:)`` reads once the signature has been checked.
    public var source: String
    /// How the source was written.
    public var sourceEncoding: SourceEncoding
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
    /// segment that names a preset is an option segment though it has no `:`; options are told
    /// from the source by ``ImgproxyOptionRules/argumentsSeparator``; and with
    /// ``ImgproxyOptionRules/base64SourcesIncludeFilename`` the last segment of a base64 or
    /// encrypted source is dropped.
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
        while index < segments.count,
              let option = Self.option(segments[index], separator: rules.argumentsSeparator) ?? (rules.isBarePreset(segments[index]) ? String(segments[index]) : nil) {
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
            self.sourceEncoding = .plain
            return
        }
        let encrypted = first == "enc"
        var parts = encrypted ? rest.dropFirst() : rest
        // imgproxy drops the name only when something is left before it.
        if rules.base64SourcesIncludeFilename, parts.count > 1 { parts = parts.dropLast() }
        var encoded = parts.joined()
        if let dot = encoded.lastIndex(of: ".") {
            fileExtension = String(encoded[encoded.index(after: dot)...]).lowercased()
            encoded = String(encoded[..<dot])
        }
        if encrypted {
            guard !encoded.isEmpty, Base64URL.decode(encoded) != nil else { throw ImgproxyError(.invalidPath, "source: cannot be decrypted") }
            self.source = encoded
            self.sourceEncoding = .encrypted
            return
        }
        guard let bytes = Base64URL.decode(encoded), let source = String(validating: bytes, as: UTF8.self), !source.isEmpty else {
            throw ImgproxyError(.invalidPath, "source: not valid base64url")
        }
        self.source = source
        self.sourceEncoding = .base64
    }

    /// The unsigned path for `options` and `source`: what ``ImgproxySigner`` signs and what
    /// follows the signature segment.
    ///
    /// ```swift
    /// ImgproxyPath.unsigned(options: ["w:300"], source: "https://example.com/a.jpg", format: .webp)
    /// // "/w:300/aHR0cHM6Ly9leGFtcGxlLmNvbS9hLmpwZw.webp"
    /// ```
    ///
    /// - Precondition: `encoding` is not ``SourceEncoding/encrypted``, which needs a key: write
    ///   those with ``unsigned(options:source:format:cipher:)``.
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
        case .encrypted:
            preconditionFailure("ImgproxyPath.unsigned: an encrypted source needs a key; call unsigned(options:source:format:cipher:)")
        }
    }

    /// The unsigned path for `options` and `source` encrypted by `cipher`:
    /// `/{options}/enc/{encrypted}[.{ext}]`.
    ///
    /// ```swift
    /// let cipher = try ImgproxySourceCipher(keyHex: encryptionKeyHex)
    /// ImgproxyPath.unsigned(options: ["w:300"], source: "https://example.com/a.jpg", format: .webp, cipher: cipher)
    /// // "/w:300/enc/…base64url of the IV and the ciphertext….webp"
    /// ```
    public static func unsigned(options: [String], source: String, format: ImageFormat? = nil, cipher: ImgproxySourceCipher) -> String {
        "/" + options.joined(separator: "/") + "/enc/" + cipher.encrypt(source) + (format.map { "." + $0.imgproxyExtension } ?? "")
    }

    /// What a plain source may carry unencoded: URL characters, minus imgproxy's `@` (the
    /// extension), `%`, `?` and `#`.
    private static let plainAllowed: CharacterSet = {
        var allowed = CharacterSet.urlPathAllowed
        allowed.insert(charactersIn: ":")
        allowed.remove(charactersIn: "@%?#")
        return allowed
    }()

    /// `segment` as an option segment (with `%3A` read as `:` when `:` separates arguments), or
    /// `nil` when it starts the source.
    private static func option(_ segment: Substring, separator: Character) -> String? {
        if segment.contains(separator) { return String(segment) }
        guard separator == ":", segment.contains("%3A") || segment.contains("%3a") else { return nil }
        return segment.replacingOccurrences(of: "%3A", with: ":").replacingOccurrences(of: "%3a", with: ":")
    }
}
