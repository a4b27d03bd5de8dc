import Crypto
import Foundation
import HTTPTypes
import Imagery

/// imgproxy's cookie passthrough (`IMGPROXY_COOKIE_PASSTHROUGH`, `_BASE_URL`, `_ALL`): a
/// client's cookies are sent to the source when the source is in their scope, so that an origin
/// that serves private images by session cookie serves them through the server.
///
/// The scope is the host the cookies were set for: `--cookie-base-url`'s, or else the request's
/// own (`X-Forwarded-Host`, else `Host`), as imgproxy's cookie jar takes it; cookies go to a
/// source on that host (any port or scheme, as a host-only cookie does) and to no other, not even
/// on a redirect that leaves it. `--cookie-passthrough-all` sends them to every http(s) source,
/// on every hop, which imgproxy's docs warn can hand a client's credentials to any origin.
///
/// An answer made with a client's cookies is that client's alone: no shared tier stores it, the
/// memory tier keeps it under a key of the cookies and their scope, and it goes out
/// `Cache-Control: private` with `Vary: Cookie`, so that no shared cache in front keeps it.
package struct CookiePassthrough: Sendable, Hashable {
    /// `--cookie-passthrough`. Default: `false`.
    package var isEnabled = false
    /// `--cookie-base-url`: the scope, in place of the request's host. Default: none.
    package var baseURL: String?
    /// `--cookie-passthrough-all`: every http(s) source gets the cookies. Default: `false`.
    package var passesAll = false

    package init() {}

    /// A client's cookies and the host they are scoped to.
    struct Cookies: Sendable, Hashable {
        /// The `Cookie` header to send.
        let header: String
        /// The host (lowercased, no port) whose sources get them; `nil` for every source.
        let scope: String?

        /// What the memory tier keys the client's answers by: a digest of the cookies and
        /// their scope (the same cookies from another host may reach another source).
        var partition: String {
            "cookie:" + Hex.encode(SHA256.hash(data: Array((header + "\n" + (scope ?? "*")).utf8)))
        }
    }

    /// The cookies of a request with `headers`, and their scope; `nil` when passthrough is off,
    /// the request has none, or no scope can be told.
    func cookies(in headers: HTTPFields, authority: String?) -> Cookies? {
        guard isEnabled else { return nil }
        let header = headers[values: .cookie].map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: "; ")
        guard !header.isEmpty else { return nil }
        if passesAll { return Cookies(header: header, scope: nil) }
        let host = baseURL.flatMap { URL(string: $0)?.host } ?? headers[.forwardedHost] ?? authority
        guard let scope = host.map(Self.hostWithoutPort), !scope.isEmpty else { return nil }
        return Cookies(header: header, scope: scope)
    }

    /// `source` with `cookies` as its `Cookie` header, when it is an http(s) source in their
    /// scope; `nil` otherwise.
    func source(_ source: ImageSource, with cookies: Cookies?) -> ImageSource? {
        guard let cookies, case let .url(url, headers) = source.kind, ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
              cookies.scope == nil || url.host.map(Self.hostWithoutPort) == cookies.scope
        else { return nil }
        return .url(url, headers: headers.merging(["Cookie": cookies.header]) { $1 })
    }

    /// `host[:port]` without the port, lowercased; an IPv6 literal without its brackets.
    static func hostWithoutPort(_ host: String) -> String {
        var host = host.trimmingCharacters(in: .whitespaces).lowercased()
        if host.hasPrefix("[") {
            return String(host.dropFirst().prefix { $0 != "]" })
        }
        if host.filter({ $0 == ":" }).count == 1, let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        return host
    }
}

extension HTTPField.Name {
    /// `X-Forwarded-Host`, the host a proxy in front was asked for.
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
}

extension ImageSource {
    /// Whether the source carries a client's cookies.
    var carriesCookies: Bool {
        guard case let .url(_, headers) = kind else { return false }
        return headers.keys.contains { $0.lowercased() == "cookie" }
    }
}
