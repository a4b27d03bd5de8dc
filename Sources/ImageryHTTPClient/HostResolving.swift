import Imagery
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a host name into the addresses to connect to: the step a ``ConnectionGuard`` checks.
/// Tests inject a double that answers as they need, and never ask real DNS.
///
/// ```swift
/// struct Fixed: HostResolving {
///     func addresses(of host: String) async throws(DataLoadingError) -> [String] { ["127.0.0.1"] }
/// }
/// ```
public protocol HostResolving: Sendable {
    /// Every address `host` resolves to, as IP literals; empty when it resolves to none.
    func addresses(of host: String) async throws(DataLoadingError) -> [String]
}

/// The system resolver (`getaddrinfo`), called on NIO's blocking-work threads: a blocking
/// lookup never holds a thread of the cooperative pool.
public struct SystemHostResolver: HostResolving {
    /// The system resolver.
    public init() {}

    public func addresses(of host: String) async throws(DataLoadingError) -> [String] {
        do {
            return try await NIOThreadPool.singleton.runIfActive { Self.lookUp(host) }
        } catch {
            throw .cancelled
        }
    }

    private static func lookUp(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var node = list
        while let entry = node?.pointee {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(entry.ai_addr, entry.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 {
                let address = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !addresses.contains(address) { addresses.append(address) }
            }
            node = entry.ai_next
        }
        return addresses
    }
}
