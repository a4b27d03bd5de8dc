import Foundation
import Hummingbird

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the server listens on, as imgproxy's `IMGPROXY_NETWORK` names it.
package enum ListenNetwork: String, Sendable, CaseIterable {
    /// TCP on whatever address ``ServerConfiguration/host`` names.
    case tcp
    /// TCP on an IPv4 address only: a name resolves to its IPv4 address, every interface is 0.0.0.0.
    case tcp4
    /// TCP on an IPv6 address only: a name resolves to its IPv6 address, every interface is ::.
    case tcp6
    /// A Unix domain socket, ``ServerConfiguration/unixSocket``.
    case unix
}

/// A TCP address as imgproxy writes one (`IMGPROXY_BIND`, `IMGPROXY_PROMETHEUS_BIND`):
/// `host:port`, `[v6]:port`, or `:port` for every interface.
package struct HostAndPort: Sendable, Equatable, CustomStringConvertible {
    package var host: String
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `text` read as imgproxy reads it, or `nil` when it is not `host:port` with a port of
    /// 0 to 65535.
    package init?(parsing text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.init(host: host.isEmpty ? "0.0.0.0" : host, port: port)
    }

    package var description: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }
}

extension ServerConfiguration {
    /// Where the server listens, the host resolved to the address family ``network`` asks for.
    ///
    /// - Throws: ``ServerSetupError/network(_:)`` when `tcp4` or `tcp6` meets a host of the
    ///   other family or a name with no address of theirs, or `unix` has no socket path.
    func bindAddress() throws(ServerSetupError) -> BindAddress {
        // A socket path alone is enough: `--network unix` only says it again.
        if let unixSocket { return .unixDomainSocket(path: unixSocket) }
        switch network {
        case .unix:
            throw .network("unix needs --unix-socket PATH (imgproxy: IMGPROXY_BIND=/path/to.sock)")
        case .tcp:
            return .hostname(host, port: port)
        case .tcp4:
            return .hostname(try Self.address(of: host, family: AF_INET), port: port)
        case .tcp6:
            return .hostname(try Self.address(of: host, family: AF_INET6), port: port)
        }
    }

    /// The address a client reaches the server at, for the start's log line: a URL, or the
    /// socket's path.
    package func listeningDescription(port: Int) -> String {
        if let unixSocket { return "unix:" + unixSocket }
        let host = resolvedHost
        return "http://" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// ``host`` as the server binds it (`tcp4` and `tcp6` resolve it).
    var resolvedHost: String {
        switch network {
        case .tcp4: (try? Self.address(of: host, family: AF_INET)) ?? host
        case .tcp6: (try? Self.address(of: host, family: AF_INET6)) ?? host
        case .tcp, .unix: host
        }
    }

    /// `host` as a literal of `family`: the family's own "every interface" for either
    /// wildcard, a literal of that family as it is, a name resolved to its first address of it.
    static func address(of host: String, family: Int32) throws(ServerSetupError) -> String {
        let name = family == AF_INET ? "IPv4 (tcp4)" : "IPv6 (tcp6)"
        var literal = Substring(host)
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = literal.dropFirst().dropLast() }
        if literal == "0.0.0.0" || literal == "::" { return family == AF_INET ? "0.0.0.0" : "::" }
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, String(literal), &v4) == 1 {
            guard family == AF_INET else { throw .network("\(host) is an IPv4 address, and the network is \(name)") }
            return String(literal)
        }
        if inet_pton(AF_INET6, String(literal), &v6) == 1 {
            guard family == AF_INET6 else { throw .network("\(host) is an IPv6 address, and the network is \(name)") }
            return String(literal)
        }
        var hints = addrinfo()
        hints.ai_family = family
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(String(literal), nil, &hints, &found) == 0, let first = found else {
            throw .network("\(host) has no \(name) address")
        }
        defer { freeaddrinfo(found) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: UnsafePointer<CChar>? = if family == AF_INET {
            first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                var raw = address.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
            }
        } else {
            first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                var raw = address.pointee.sin6_addr
                return inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
            }
        }
        guard written != nil else { throw .network("\(host) has no \(name) address") }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
