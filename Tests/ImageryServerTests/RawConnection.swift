import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One client connection made by hand, for what an HTTP client hides: a request sent in
/// part, a response not read, a connection the server closes. Its waits block a thread of
/// their own (never the cooperative pool) and each ends within its limit.
final class RawConnection: Sendable {
    let descriptor: Int32
    private let closed = Atomic<Bool>(false)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// A TCP connection to 127.0.0.1:`port`; `receiveBuffer` shrinks the socket's receive
    /// buffer first (a client that reads nothing then holds up a large response sooner).
    static func tcp(port: Int, receiveBuffer: Int? = nil) throws -> RawConnection {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { Glibc.close(fd); throw POSIXError(.ECONNREFUSED) }
        return RawConnection(descriptor: fd)
    }

    /// A connection to the Unix socket at `path`.
    static func unix(path: String) throws -> RawConnection {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
        guard connected else { Glibc.close(fd); throw POSIXError(.ECONNREFUSED) }
        return RawConnection(descriptor: fd)
    }

    deinit { close() }

    func close() {
        if !closed.exchange(true, ordering: .relaxed) { Glibc.close(descriptor) }
    }

    /// Sends `text` whole.
    func send(_ text: String) throws {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let sent = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw POSIXError(.EPIPE) }
            bytes = bytes.dropFirst(sent)
        }
    }

    /// A GET of `path` with `headers`, on this connection.
    func get(_ path: String, headers: [String] = []) throws {
        try send((["GET \(path) HTTP/1.1", "Host: test"] + headers).joined(separator: "\r\n") + "\r\n\r\n")
    }

    /// What the server sent until it closed the connection, or until `limit` passed; `closed`
    /// says which.
    func readUntilClosed(within limit: Duration = .seconds(120)) async -> (bytes: [UInt8], closed: Bool) {
        await onThread { [descriptor] in
            var received: [UInt8] = []
            let deadline = ContinuousClock.now + limit
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while ContinuousClock.now < deadline {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) >= 0 || errno == EINTR else { return (received, true) }
                guard poller.revents != 0 else { continue }
                let count = recv(descriptor, &chunk, chunk.count, 0)
                if count <= 0 { return (received, true) }   // end of stream, or reset
                received += chunk[..<count]
            }
            return (received, false)
        }
    }

    /// One response: its head as text, and a body of its `Content-Length`; `nil` when the
    /// connection closed first or `limit` passed. The default is `ServerHarness.get`'s, for its
    /// reason: in a full run on two cores an answer's decode can wait minutes behind other
    /// suites' work.
    func readResponse(within limit: Duration = .seconds(240)) async -> (head: String, body: [UInt8])? {
        await onThread { [descriptor] in
            var received: [UInt8] = []
            let deadline = ContinuousClock.now + limit
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            var expected: Int?
            var headEnd = 0
            while ContinuousClock.now < deadline {
                if expected == nil, let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                    headEnd = end.upperBound
                    let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                    let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                        .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                    expected = headEnd + length
                }
                if let expected, received.count >= expected {
                    return (String(decoding: received[..<(headEnd - 4)], as: UTF8.self), Array(received[headEnd..<expected]))
                }
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) >= 0 || errno == EINTR else { return nil }
                guard poller.revents != 0 else { continue }
                let count = recv(descriptor, &chunk, chunk.count, 0)
                if count <= 0 { return nil }
                received += chunk[..<count]
            }
            return nil
        }
    }

    /// Whether anything (bytes, or the end of the stream) has arrived, without waiting.
    var hasArrived: Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, 0) > 0
    }

    private func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }
}
