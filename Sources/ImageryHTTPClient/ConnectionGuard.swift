import Foundation
import Imagery

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where ``HTTPClientDataLoader`` may connect: each host of a redirect chain is resolved once,
/// every address it resolves to is checked, and the connection goes to an address that was
/// checked, with the original `Host` header and TLS server name. A DNS answer that changes
/// between the check and the connection (rebinding) therefore never reaches an address the
/// check refused: there is no second lookup.
///
/// ```swift
/// var http = HTTPClientDataLoader.Configuration()
/// http.connectionGuard = ConnectionGuard { address, host throws(DataLoadingError) in
///     guard isPublic(address) else { throw .redirectRefused(source: host, detail: "\(address) is private") }
/// }
/// ```
public struct ConnectionGuard: Sendable {
    /// How host names are resolved. Default: ``SystemHostResolver``.
    public var resolver: any HostResolving
    /// Called with every address a host resolves to (or the IP literal a URL names); throw to
    /// refuse the connection.
    public var check: @Sendable (_ address: String, _ host: String) throws(DataLoadingError) -> Void

    /// A guard that checks every address with `check`.
    public init(
        resolver: any HostResolving = SystemHostResolver(),
        check: @escaping @Sendable (_ address: String, _ host: String) throws(DataLoadingError) -> Void
    ) {
        self.resolver = resolver
        self.check = check
    }

    /// The checked address to connect to for `host`, or `nil` when `host` is an IP literal
    /// (checked, and connected to as it is).
    ///
    /// - Throws: what ``check`` throws for any of the addresses, or
    ///   `DataLoadingError.connectionFailed(source:detail:)` when the name resolves to none.
    public func address(for host: String) async throws(DataLoadingError) -> String? {
        if let literal = Self.literal(host) {
            try check(literal, host)
            return nil
        }
        let addresses = try await resolver.addresses(of: host)
        guard let first = addresses.first else { throw .connectionFailed(source: host, detail: "host not found") }
        for address in addresses { try check(address, host) }
        return first
    }

    /// `host` without IPv6 brackets when it is an IP literal.
    static func literal(_ host: String) -> String? {
        var text = Substring(host)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        var v4 = in_addr(), v6 = in6_addr()
        let literal = String(text)
        return inet_pton(AF_INET, literal, &v4) == 1 || inet_pton(AF_INET6, literal, &v6) == 1 ? literal : nil
    }
}
