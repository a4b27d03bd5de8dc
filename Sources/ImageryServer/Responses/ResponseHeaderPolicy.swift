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
            let directives = Self.directives(value)
            if directives.keys.contains(where: { ["no-store", "private", "no-cache"].contains($0) }) { return .notStored(value) }
            let age = (directives["s-maxage"] ?? directives["max-age"]).flatMap { Int($0 ?? "") }
            if let age, age <= 0 { return .notStored(value) }
            return .sourceCacheControl(value, freshUntil: age.map { madeAt + $0 })
        }
        if let text = source.expires {
            // An Expires that is not a date means "already expired" (RFC 9111).
            guard let date = HTTPDate.parse(text), date > madeAt else { return .notStored("max-age=0, public") }
            return .sourceExpires(date)
        }
        return .ours
    }

    /// `Cache-Control`'s directives, lowercased, with their values unquoted.
    static func directives(_ value: String) -> [String: String?] {
        var directives: [String: String?] = [:]
        for part in value.split(separator: ",") {
            let pieces = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let name = pieces.first?.lowercased(), !name.isEmpty else { continue }
            directives[name] = pieces.count > 1 ? String(pieces[1].filter { $0 != "\"" }) : String?.none
        }
        return directives
    }

    /// `value` with its `max-age` and `s-maxage` lowered by `age` seconds (never below 0), for a
    /// stored copy of a response whose source's `Cache-Control` is passed through.
    static func aged(_ value: String, by age: Int) -> String {
        guard age > 0 else { return value }
        return value.split(separator: ",", omittingEmptySubsequences: false).map { part -> String in
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            for name in ["max-age=", "s-maxage="] where trimmed.lowercased().hasPrefix(name) {
                guard let seconds = Int(trimmed.dropFirst(name.count).filter { $0 != "\"" }) else { return String(part) }
                return (part.hasPrefix(" ") ? " " : "") + name + String(max(0, seconds - age))
            }
            return String(part)
        }.joined(separator: ",")
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
