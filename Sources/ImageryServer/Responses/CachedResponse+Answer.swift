import Foundation
import HTTPTypes
import Hummingbird
import Imagery
import ImageryImgproxy

extension CachedResponse {
    /// What a request asks conditionally: `If-None-Match` and `If-Modified-Since`.
    struct Conditions: Sendable {
        var ifNoneMatch: String?
        var ifModifiedSince: String?

        init(ifNoneMatch: String? = nil, ifModifiedSince: String? = nil) {
            self.ifNoneMatch = ifNoneMatch
            self.ifModifiedSince = ifModifiedSince
        }

        init(_ headers: HTTPFields) {
            self.init(ifNoneMatch: headers[.ifNoneMatch], ifModifiedSince: headers[.ifModifiedSince])
        }
    }

    /// Whether a request with `conditions` has this response already: its tag is in
    /// `If-None-Match` (when ETags are on), or, with no `If-None-Match` (which takes precedence,
    /// RFC 9110), it was not modified after `If-Modified-Since`. Only 200s are validated.
    func isNotModified(for conditions: Conditions) -> Bool {
        guard status == .ok else { return false }
        if let ifNoneMatch = conditions.ifNoneMatch {
            return answersETag && Self.matches(ifNoneMatch, etag)
        }
        guard let lastModified, let text = conditions.ifModifiedSince, let since = HTTPDate.parse(text) else { return false }
        return lastModified <= since
    }

    /// The answer to a request with `conditions` for a URL that expires at `expires` (Unix
    /// seconds; `nil` for never), asked at `now`: 304 when the client has it, 404 once the URL
    /// has expired, as imgproxy answers, and otherwise a `max-age` that never reaches past the
    /// expiry, nor past the source's freshness when that is passed through.
    func response(_ conditions: Conditions, expires: Int?, now: @autoclosure () -> Int) throws(ServerError) -> Response {
        let notModified = isNotModified(for: conditions)
        var fields = notModified ? notModifiedHeaders : headers
        var cacheControl = fields[.cacheControl]
        switch lifetime {
        case .ours, .notStored:
            break
        case let .sourceCacheControl(value, _):
            cacheControl = CacheControl.aged(value, by: now() - madeAt)
        case let .sourceExpires(date):
            cacheControl = "max-age=\(max(0, date - now())), public"
        }
        if isPrivate { cacheControl = cacheControl.map(ResponseHeaderPolicy.privateCacheControl) }
        fields[.cacheControl] = cacheControl
        if let expires {
            let left = expires - now()
            guard left > 0 else { throw ServerError(status: .notFound, message: "the URL has expired") }
            // A server that says no-cache (no max-age) keeps saying it.
            if let stored = fields[.cacheControl].flatMap(CacheControl.maximumAge) {
                fields[.cacheControl] = (isPrivate ? "private" : "public") + ", max-age=\(min(left, stored))"
            }
        }
        if notModified { return Response(status: .notModified, headers: fields) }
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: body))
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

    /// `If-None-Match`: a list of tags, weak or strong, or `*`.
    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}
