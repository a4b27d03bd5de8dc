import Foundation
import Imagery

/// How a server writes the caching and validation headers of its image and `/info` answers,
/// from its settings: `Cache-Control` (its own, or the source's with
/// `--cache-control-passthrough`), `ETag` (`--use-etag`, `--etag-buster`) and `Last-Modified`
/// (`--use-last-modified`, `--last-modified-buster`), as imgproxy's settings of those names.
struct ResponseHeaderPolicy: Sendable, Hashable {
    /// `Cache-Control` of answers (`--cache-control`).
    var cacheControl: String
    /// Whether answers carry an `ETag` and `If-None-Match` is answered (`--use-etag`).
    var usesETag = true
    /// Mixed into every ETag, so that changing it changes them all (`--etag-buster`).
    var etagBuster: String?
    /// Whether answers carry the source's `Last-Modified` and `If-Modified-Since` is answered
    /// (`--use-last-modified`).
    var usesLastModified = true
    /// Unix seconds no `Last-Modified` is earlier than (`--last-modified-buster`).
    var lastModifiedBuster: Int?
    /// Whether the source's `Cache-Control`, or its `Expires`, replaces ours
    /// (`--cache-control-passthrough`).
    var passesCacheControlThrough = false
    /// Whether image answers say their source's and their own sizes and their quality
    /// (`--enable-debug-headers`; see ``ResponseFacts``).
    var sendsDebugHeaders = false

    init(cacheControl: String) {
        self.cacheControl = cacheControl
    }

    /// The `Last-Modified` to send for a source that said `lastModified`: at the buster at the
    /// earliest; none when the source said none or something that is not a date.
    func lastModified(of source: SourceHeaders) -> Int? {
        guard usesLastModified, let text = source.lastModified, let date = HTTPDate.parse(text) else { return nil }
        return max(date, lastModifiedBuster ?? date)
    }

    /// How long a response made at `madeAt` from `source` may be kept and reused, when the
    /// source's caching is passed through.
    enum Lifetime: Equatable {
        /// Ours: `--cache-control`, kept as long as a tier keeps it.
        case ours
        /// The source's `Cache-Control`, sent as it is (its `max-age` lowered by the age of a
        /// stored copy), fresh until the Unix second given (`nil`: no age said, kept as ours).
        case sourceCacheControl(String, freshUntil: Int?)
        /// The source's `Expires`: `max-age` counts down to it.
        case sourceExpires(Int)
        /// The source said not to store it (`no-store`, `private`, `no-cache`, or an age of 0):
        /// passed through, and never kept by any tier.
        case notStored(String)
    }

    /// The lifetime of a response made at `madeAt` from `source`.
    func lifetime(of source: SourceHeaders, madeAt: Int) -> Lifetime {
        guard passesCacheControlThrough else { return .ours }
        if let value = source.cacheControl, !value.isEmpty {
            let control = CacheControl(value)
            if control.forbidsStoring { return .notStored(value) }
            if let age = control.age, age <= 0 { return .notStored(value) }
            return .sourceCacheControl(value, freshUntil: control.age.map { madeAt + $0 })
        }
        if let text = source.expires {
            // An Expires that is not a date means "already expired" (RFC 9111).
            guard let date = HTTPDate.parse(text), date > madeAt else { return .notStored("max-age=0, public") }
            return .sourceExpires(date)
        }
        return .ours
    }

    /// `value` made for one client only: `private` instead of `public`, no `s-maxage`, so that no
    /// shared cache (the nginx edge, a CDN) stores an answer made with a client's cookies.
    static func privateCacheControl(_ value: String) -> String {
        let kept = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { part in
            let name = part.lowercased()
            return !name.isEmpty && name != "public" && name != "private" && !name.hasPrefix("s-maxage") && name != "immutable"
        }
        return (["private"] + kept).joined(separator: ", ")
    }
}
