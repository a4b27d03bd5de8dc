import Foundation
import HTTPTypes
import Hummingbird
import Imagery
import ImageryImgproxy
import NIOCore

/// An encoded image response as every tier keeps it: the body in a `ByteBuffer` that each
/// response shares without a copy, and its headers built once, so a hit is a lookup and a
/// `Response` made from stored parts.
struct CachedResponse: Sendable {
    let body: ByteBuffer
    let contentType: String
    let etag: String
    /// The headers of a 200: type, length, `Cache-Control`, `ETag`, `Vary` when negotiated and
    /// `Content-Disposition` once set.
    private(set) var headers: HTTPFields
    /// The headers of a 304: the same validators, caching and length, no body.
    let notModifiedHeaders: HTTPFields
    /// When the URL it answers expires (Unix seconds), so that a hit honours it without parsing
    /// the URL again; `nil` for never. Kept in memory only: a disk hit learns it from the URL.
    var expires: Int?
    /// `Content-Disposition`, named by the URL (`filename`, `return_attachment`); kept in memory
    /// only, as ``expires`` is.
    /// Written into ``headers`` when set, so that a hit copies nothing.
    var disposition: String? {
        didSet { headers[.contentDisposition] = disposition }
    }

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

    /// `Content-Disposition` for `plan`'s name, with the extension of this response's format,
    /// as imgproxy writes it: `inline` (or `attachment`) and a quoted ASCII name, with the
    /// UTF-8 name beside it (RFC 6266) when it has other characters.
    func disposition(for plan: ImgproxyPlan) -> String {
        let format = ImageFormat.allCases.first { $0.mimeType == contentType }
        let name = plan.filename + (format.map { "." + $0.imgproxyExtension } ?? "")
        let ascii = String(name.unicodeScalars.filter { $0.isASCII && $0.value >= 32 && $0 != "\"" && $0 != "\\" && $0 != "\u{7F}" })
        var value = (plan.returnsAttachment ? "attachment" : "inline") + "; filename=\"\(ascii)\""
        if ascii != name, let encoded = name.addingPercentEncoding(withAllowedCharacters: Self.attributeCharacters) {
            value += "; filename*=UTF-8''" + encoded
        }
        return value
    }

    /// RFC 5987's attr-char: what a `filename*` value carries unencoded.
    private static let attributeCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$&+-.^_`|~")

    /// The answer for a URL that expires at `expires` (Unix seconds; `nil` for never), asked at
    /// `now`: 404 once past, as imgproxy answers, and otherwise a `max-age` that never reaches
    /// past the expiry. Stored responses keep their own `max-age`; this shortens it per request.
    func response(ifNoneMatch: String?, expires: Int?, now: @autoclosure () -> Int) throws(ServerError) -> Response {
        guard let expires else { return response(ifNoneMatch: ifNoneMatch) }
        let left = expires - now()
        guard left > 0 else { throw ServerError(status: .notFound, message: "the URL has expired") }
        var response = response(ifNoneMatch: ifNoneMatch)
        // A server that says no-cache (no max-age) keeps saying it.
        guard let stored = response.headers[.cacheControl].flatMap(Self.maximumAge) else { return response }
        response.headers[.cacheControl] = "public, max-age=\(min(left, stored))"
        return response
    }

    /// The `max-age` of a `Cache-Control` value, if it has one.
    static func maximumAge(in value: String) -> Int? {
        guard let range = value.range(of: "max-age=") else { return nil }
        return Int(value[range.upperBound...].prefix { $0.isNumber })
    }

    /// `If-None-Match`: a list of tags, weak or strong, or `*`.
    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
