import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Imagery
import ImageryImgproxy
import NIOCore

/// An encoded answer as every tier keeps it: the body in a `ByteBuffer` that each response
/// shares without a copy, what the source said about its freshness, and the headers built once
/// from those by the server's ``ResponseHeaderPolicy``, so a hit is a lookup and a `Response`
/// made from stored parts (only a stored copy whose source's `max-age` is passed through has
/// it lowered by its age, per request).
struct CachedResponse: Sendable {
    /// Which tiers may keep a response.
    enum Storage: Sendable, Equatable {
        /// Every tier: memory, disk and result storage.
        case everywhere
        /// None: a fallback image (never the answer for its URL's source), or an answer whose
        /// source said not to store it.
        case nowhere
    }

    let body: ByteBuffer
    let contentType: String
    /// The body's tag (its digest, with the ETag buster): kept whether or not it is sent.
    let etag: String
    let varyAccept: Bool
    /// The source's `Cache-Control`, `Expires` and `Last-Modified` (the rest left out): what
    /// every tier keeps, so that any of them answers with the source's freshness.
    let source: SourceHeaders
    /// When it was made, in Unix seconds.
    let madeAt: Int
    /// The source's and the result's sizes and the quality: kept by every tier, sent as debug
    /// headers with `--enable-debug-headers`.
    let facts: ResponseFacts
    /// 200, or what a fallback image is answered with.
    var status: HTTPResponse.Status = .ok
    /// Where it may be kept.
    var storage: Storage
    /// How long it may be reused, from the source's caching when that is passed through.
    let lifetime: ResponseHeaderPolicy.Lifetime
    /// The headers of a 200: type, length, `Cache-Control`, `ETag` and `Last-Modified` as the
    /// policy says, `Vary` when negotiated, and what the path added (`Content-Disposition`, `Link`).
    private(set) var headers: HTTPFields
    /// The headers of a 304: the same validators, caching and length, no body.
    private(set) var notModifiedHeaders: HTTPFields
    /// Whether `If-None-Match` is answered (`--use-etag`).
    let answersETag: Bool
    /// `Last-Modified` in Unix seconds, when sent.
    let lastModified: Int?
    /// When the URL it answers expires (Unix seconds), so that a hit honours it without parsing
    /// the URL again; `nil` for never. Kept in memory only: a disk hit learns it from the URL.
    var expires: Int?
    /// `Content-Disposition`, named by the URL (`filename`, `return_attachment`); kept in memory
    /// only, as ``expires`` is. Written into ``headers`` when set, so that a hit copies nothing.
    var disposition: String? {
        didSet { headers[.contentDisposition] = disposition }
    }
    /// `Link: <source>; rel="canonical"` (`--set-canonical-header`), added as ``disposition`` is.
    var canonical: String? {
        didSet {
            headers[.link] = canonical
            notModifiedHeaders[.link] = canonical
        }
    }

    /// A response of `body`, tagged `etag`, made at `madeAt` from a source that said `source`,
    /// with headers as `policy` writes them.
    init(
        body: ByteBuffer, contentType: String, etag: String, varyAccept: Bool, source: SourceHeaders = SourceHeaders(),
        facts: ResponseFacts = ResponseFacts(), madeAt: Int, policy: ResponseHeaderPolicy
    ) {
        self.body = body
        self.contentType = contentType
        self.etag = etag
        self.varyAccept = varyAccept
        self.source = SourceHeaders(cacheControl: source.cacheControl, expires: source.expires, lastModified: source.lastModified)
        // A stored answer's time is read back from disk or a bucket: held to the dates a header
        // can say, so that no age computed from it can overflow.
        let madeAt = min(max(madeAt, HTTPDate.seconds.lowerBound), HTTPDate.seconds.upperBound)
        self.madeAt = madeAt
        self.facts = facts
        self.answersETag = policy.usesETag
        self.lastModified = policy.lastModified(of: source)
        self.lifetime = policy.lifetime(of: source, madeAt: madeAt)
        if case .notStored = lifetime { storage = .nowhere } else { storage = .everywhere }
        var common = HTTPFields()
        common[.cacheControl] = switch lifetime {
        case .ours: policy.cacheControl
        case let .sourceCacheControl(value, _), let .notStored(value): value
        case let .sourceExpires(date): "max-age=\(max(0, date - madeAt)), public"
        }
        if policy.usesETag { common[.eTag] = etag }
        if let lastModified { common[.lastModified] = HTTPDate.format(lastModified) }
        if varyAccept { common[.vary] = "Accept" }
        // A 304 may state the length only as the 200's: an empty body would otherwise say 0.
        common[.contentLength] = String(body.readableBytes)
        notModifiedHeaders = common
        var headers = common
        // A document a browser may open (an SVG above all) gets its policy and nosniff from
        // SecurityHeadersMiddleware, as every other answer does.
        headers[.contentType] = contentType
        if policy.sendsDebugHeaders { headers.append(contentsOf: facts.headers) }
        self.headers = headers
    }

    /// The tag of `bytes`: a digest, with the ETag buster mixed in so that changing it changes
    /// every tag.
    static func tag(of bytes: some Sequence<UInt8>, buster: String?) -> String {
        var hasher = SHA256()
        if let buster { hasher.update(data: Array(buster.utf8) + [0]) }
        hasher.update(data: Array(bytes))
        return "\"" + Base64URL.encode(Array(hasher.finalize()).prefix(16)) + "\""
    }

    /// Whether the response has been made for one client (its cookies were passed to the source).
    /// `Cache-Control` then says `private`, and `Vary` names `Cookie`, so that no shared cache in
    /// front keeps it; the tiers keep it in memory only, under a key of the client's cookies.
    var isPrivate = false {
        didSet {
            guard isPrivate, !oldValue else { return }
            for fields in [\CachedResponse.headers, \CachedResponse.notModifiedHeaders] {
                self[keyPath: fields][.cacheControl] = self[keyPath: fields][.cacheControl].map(ResponseHeaderPolicy.privateCacheControl)
                self[keyPath: fields][.vary] = self[keyPath: fields][.vary].map { $0 + ", Cookie" } ?? "Cookie"
            }
        }
    }

    /// Replaces the `Cache-Control` this response was made with (a fallback image's own lifetime).
    mutating func setCacheControl(_ value: String) {
        headers[.cacheControl] = value
        notModifiedHeaders[.cacheControl] = value
    }

    /// Whether a stored copy is still fresh at `now`: always, unless the source's caching is
    /// passed through and its age has run out.
    func isFresh(at now: Int) -> Bool {
        switch lifetime {
        case .ours, .sourceCacheControl(_, nil): true
        case let .sourceCacheControl(_, freshUntil?), let .sourceExpires(freshUntil): now < freshUntil
        case .notStored: false
        }
    }
}

extension HTTPField.Name {
    /// `Link`, for the canonical URL of an image.
    static let link = HTTPField.Name("Link")!
}
