import Foundation
import Imagery

/// An imgproxy-format request path split into its parts, before anything is checked:
/// `/{signature}/{options…}/{base64url source}[.{ext}]` or
/// `/{signature}/{options…}/plain/{percent-encoded source}[@{ext}]`.
///
/// Options end at the first segment without a `:`, as in imgproxy; that segment starts the
/// source. A base64 source may be split by `/` (imgproxy allows it for long URLs).
struct ProcessingPath: Equatable {
    /// The first segment, as sent.
    var signature: String
    /// The path after the signature, leading `/` included: what the signature covers.
    var signedPart: String
    /// The option segments, in order, still unparsed (`rs:fit:300:200`).
    var options: [String]
    /// The decoded source URL (`http://…`, `local:///…`).
    var source: String
    /// The extension asked for, lowercased, if any.
    var fileExtension: String?

    /// Splits `path` (no query: imgproxy's URLs carry everything in the path).
    static func parse(_ path: String) throws(ServerError) -> ProcessingPath {
        guard path.hasPrefix("/") else { throw .badRequest("path: must start with /") }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 2, !segments[0].isEmpty else {
            throw .badRequest("path: expected /{signature}/{options}/{source}")
        }
        let signature = String(segments[0])
        let signedPart = String(path.dropFirst(segments[0].count + 1))
        var index = 1
        var options: [String] = []
        while index < segments.count, segments[index].contains(":") {
            options.append(String(segments[index]))
            index += 1
        }
        let rest = segments[index...]
        guard let first = rest.first, !first.isEmpty else { throw .badRequest("source: missing") }

        if first == "plain" {
            var encoded = rest.dropFirst().joined(separator: "/")
            var fileExtension: String?
            if let at = encoded.lastIndex(of: "@") {
                fileExtension = String(encoded[encoded.index(after: at)...]).lowercased()
                encoded = String(encoded[..<at])
            }
            guard !encoded.isEmpty, let source = encoded.removingPercentEncoding else {
                throw .badRequest("source: not a valid percent-encoded URL")
            }
            return ProcessingPath(
                signature: signature, signedPart: signedPart, options: options, source: source,
                fileExtension: fileExtension
            )
        }
        if first == "enc" { throw .badRequest("source: encrypted sources are not supported") }

        var encoded = rest.joined()
        var fileExtension: String?
        if let dot = encoded.lastIndex(of: ".") {
            fileExtension = String(encoded[encoded.index(after: dot)...]).lowercased()
            encoded = String(encoded[..<dot])
        }
        guard let bytes = Base64URL.decode(encoded), let source = String(bytes: bytes, encoding: .utf8), !source.isEmpty else {
            throw .badRequest("source: not valid base64url")
        }
        return ProcessingPath(
            signature: signature, signedPart: signedPart, options: options, source: source, fileExtension: fileExtension
        )
    }
}
