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
/// lookup never holds a thread of the cooperative pool. A cancelled caller (its deadline) is
/// answered at once; a lookup already under way finishes on its own thread and is dropped.
public struct SystemHostResolver: HostResolving {
    /// The system resolver.
    public init() {}

    public func addresses(of host: String) async throws(DataLoadingError) -> [String] {
        let waiter = Locked<CheckedContinuation<[String]?, Never>?>(nil)
        let answer = { @Sendable (addresses: [String]?) in
            waiter.withLock { held in defer { held = nil }; return held }?.resume(returning: addresses)
        }
        let found = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[String]?, Never>) in
                waiter.withLock { $0 = continuation }
                if Task.isCancelled { answer(nil) }
                NIOThreadPool.singleton.submit { state in
                    answer(state == .active ? Self.lookUp(host) : nil)
                }
            }
        } onCancel: {
            answer(nil)
        }
        guard let found else { throw .cancelled }
        return found
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
