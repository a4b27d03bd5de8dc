import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An encoded image response as every tier keeps it: the body in a `ByteBuffer` that each
/// response shares without a copy, and its headers built once, so a hit is a lookup and a
/// `Response` made from stored parts.
struct CachedResponse: Sendable {
    let body: ByteBuffer
    let contentType: String
    let etag: String
    /// The headers of a 200: type, length, `Cache-Control`, `ETag` and `Vary` when negotiated.
    let headers: HTTPFields
    /// The headers of a 304: the same validators, caching and length, no body.
    let notModifiedHeaders: HTTPFields

    init(body: ByteBuffer, contentType: String, etag: String, varyAccept: Bool, cacheControl: String) {
        self.body = body
        self.contentType = contentType
        self.etag = etag
        var common = HTTPFields()
        common[.cacheControl] = cacheControl
        common[.eTag] = etag
        if varyAccept { common[.vary] = "Accept" }
        // A 304 may state the length only as the 200's: an empty body would otherwise say 0.
        common[.contentLength] = String(body.readableBytes)
        notModifiedHeaders = common
        var headers = common
        headers[.contentType] = contentType
        self.headers = headers
    }

    /// Whether the response depends on `Accept`.
    var varyAccept: Bool { headers[.vary] != nil }

    /// The answer to a request with `ifNoneMatch`: 304 when it names this response's tag.
    func response(ifNoneMatch: String?) -> Response {
        if let ifNoneMatch, Self.matches(ifNoneMatch, etag) {
            return Response(status: .notModified, headers: notModifiedHeaders)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: body))
    }

    /// `If-None-Match`: a list of tags, weak or strong, or `*`.
    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
