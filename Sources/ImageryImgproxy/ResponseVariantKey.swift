import Crypto
import Imagery

/// What one server response is stored under, in every tier: the memory response cache, the
/// disk tier and the edge in front. Two requests with the same key get the same bytes.
///
/// It is the request path as sent (signature included, so only a path that passed every check
/// once is ever stored), the class of formats the client accepts, the client hints that change
/// the output, and a digest of the server settings that change output (quality defaults, the
/// decoder's draft headroom, the formats written), so a changed setting never serves an old
/// response from a tier that outlives the process.
///
/// ```swift
/// let key = ResponseVariantKey(path: "/_/w:300/plain/https://example.com/a.jpg", accepted: .webp, settings: "q80")
/// key.digest   // 64 hex digits: the disk tier's key
/// ```
package struct ResponseVariantKey: Sendable, Hashable, CustomStringConvertible {
    /// The request target's path as sent, percent-encoding and all.
    package var path: String
    /// The negotiated format class.
    package var accepted: AcceptedFormats
    /// The client hints that change the output, normalised (`dpr=2`); empty when none do.
    package var clientHints: String
    /// A digest of the settings that change output; the same for every request of one server.
    package var settings: String
    /// Who the answer is for, when it is one client's alone: a digest of the cookies a server
    /// passes to the source (`IMAGERY_COOKIE_PASSTHROUGH`) and what scopes them; empty for an
    /// answer anyone may get. Only a server's memory tier keeps keys with one: shared tiers
    /// never store such answers.
    package var partition = ""

    /// A key for `path` as `accepted` negotiates it, under `settings`.
    package init(path: String, accepted: AcceptedFormats, clientHints: String = "", settings: String) {
        self.path = path
        self.accepted = accepted
        self.clientHints = clientHints
        self.settings = settings
    }

    /// The key as one string: the fields joined by a character no path carries unencoded.
    package var description: String {
        ([path, accepted.rawValue, clientHints, settings] + (partition.isEmpty ? [] : [partition])).joined(separator: " ")
    }

    /// The SHA-256 of ``description`` in hex: the name of the key in stores that want a short,
    /// uniform one (the disk tier, object storage).
    package var digest: String {
        Hex.encode(SHA256.hash(data: Array(description.utf8)))
    }

    /// The digest of the output-changing settings `parts` (name and value each), for ``settings``.
    ///
    /// ```swift
    /// ResponseVariantKey.settingsDigest([("quality", "80"), ("draft-headroom", "1")])
    /// ```
    package static func settingsDigest(_ parts: [(String, String)]) -> String {
        let text = parts.map { "\($0.0)=\($0.1)" }.joined(separator: "\n")
        return Hex.encode(SHA256.hash(data: Array(text.utf8)).prefix(8))
    }
}
