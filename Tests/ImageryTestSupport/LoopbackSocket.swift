import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket bound to a loopback address: the test HTTP server listens on one; a test that
/// needs a refused connection holds one bound and not listening for as long as it runs.
package enum LoopbackSocket {
    /// Binds a new socket to `address`:`port` (0: a port the kernel picks) and returns it with
    /// the port it got. `address` must be a loopback address.
    /// `reusesAddress` sets `SO_REUSEADDR`, which a listening server wants (a restart may bind
    /// at once) and a held port must not have (another socket with it could share the port).
    package static func bind(address: String = "127.0.0.1", port: Int = 0, reusesAddress: Bool = true) throws -> (descriptor: Int32, port: Int) {
        precondition(address.hasPrefix("127."), "tests bind loopback addresses only")
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var one: Int32 = 1
        if reusesAddress { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) }
        let host = address
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                Glibc.bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        guard bound else { close(fd); throw POSIXError(.EADDRINUSE) }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

extension LoopbackSocket {
    /// A port for a program that must be told its port (nginx, an instance restarted on the
    /// same port): free now, and below the kernel's ephemeral range, which is where every
    /// `bind(0)` of the tests running beside this one takes its ports from. So no neighbour
    /// is handed it meanwhile, as it could be a port freed inside that range.
    package static func portBelowEphemeralRange() throws -> Int {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).compactMap { Int($0) } ?? []
        let upper = max(min(range.first ?? 32768, 32768), 12_100)
        for _ in 0..<100 {
            let port = Int.random(in: 12_000..<upper)
            if let (fd, _) = try? bind(port: port, reusesAddress: false) {
                close(fd)
                return port
            }
        }
        throw POSIXError(.EADDRINUSE)
    }
}

/// A loopback port where connections are refused for as long as this value lives: a socket
/// bound and never listening, so no other test's server can take the port meanwhile (a port
/// freed and expected to stay free was taken by a neighbour in a parallel run).
package final class RefusingPort: Sendable {
    package let port: Int
    private let descriptor: Int32

    package init() throws {
        (descriptor, port) = try LoopbackSocket.bind(reusesAddress: false)
    }

    deinit { close(descriptor) }
}

