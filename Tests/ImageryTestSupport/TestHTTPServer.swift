import Dispatch
import Foundation
import Synchronization
import Imagery
#if canImport(Glibc)
import Glibc
#endif

/// A real HTTP/1.1 server on 127.0.0.1 (or another loopback address) with an ephemeral port, started by each test that needs
/// one. A thread per connection, keep-alive, and replies that can stall until the test opens a
/// gate or the client hangs up, which is what coalescing and cancellation tests must observe
/// at the server. (FlyingFox was the other candidate; its handlers cannot see a client close
/// the connection while a response is held back, and that is exactly what one test checks.)
package final class TestHTTPServer: Sendable {
    package struct Request: Sendable {
        package let path: String
        package let headers: [String: String]
    }

    package enum Reply: Sendable {
        /// Status 200 with `body`.
        case ok([UInt8])
        /// Any status, with a short text body.
        case status(Int)
        /// `status` with `body` and `headers` of the origin's own (`Cache-Control`,
        /// `Last-Modified` …), beside the length and type.
        case headers(Int, [(name: String, value: String)], [UInt8])
        /// Headers and the first half of `body`, then the rest once `gate` opens.
        case gated([UInt8], gate: Gate)
        /// Headers and the first half of `body`, then nothing until the client closes the
        /// connection, which is recorded as event `closed:<path>`.
        case stall([UInt8])
        /// Status 302 to `location` (a path on this server, or any URL).
        case redirect(String)
        /// Status 200 and zeros as fast as the connection takes them, until the client hangs
        /// up (event `closed:<path>`), with `Content-Length: declared` if given, else none.
        /// The bytes sent are counted in ``bytesSent``.
        case endless(declared: Int?)
        /// Status 200, `Content-Length: 1000`, then one byte every `interval` until the client
        /// hangs up (event `closed:<path>`).
        case trickle(interval: Duration)
        /// Nothing at all: the request is read and never answered, until the client hangs up
        /// (event `closed:<path>`).
        case silent
        /// Status 200 with `body`, sent at about `bytesPerSecond` in 8 KB runs: a slow network
        /// for the progressive-preview benchmark.
        case throttled([UInt8], bytesPerSecond: Int)
    }

    /// Bytes sent by `.endless` replies.
    package var bytesSent: Int { sent.load(ordering: .relaxed) }
    private let sent = Atomic<Int>(0)

    package let port: Int
    package let events = EventCounter()
    private let listener: Int32
    private let handler: @Sendable (Request) -> Reply
    /// Open client sockets. Closed only under this lock, so `stop()` never shuts down a
    /// descriptor number the process has already reused for something else.
    private let connections = Locked<Set<Int32>>([])
    private let stopped = Atomic<Bool>(false)

    /// A server on `address` (a loopback address) and `port` (0: one the kernel picks).
    package init(address: String = "127.0.0.1", port: Int = 0, handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        let (fd, port) = try LoopbackSocket.bind(address: address, port: port)
        guard listen(fd, 512) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        self.port = port
        self.listener = fd
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// How many requests for `path` arrived.
    package func hits(_ path: String) -> Int { events.count("request:\(path)") }

    /// How many connections clients opened.
    package var connectionCount: Int { events.count("connection") }

    /// Stops accepting and hangs up on every client. Idempotent: closing a descriptor twice
    /// could close another test's socket that reused the number.
    package func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // The accept thread sees `stopped` within its poll timeout and closes the listener.
        connections.withLock { fds in
            for fd in fds { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    deinit { stop() }

    private func acceptLoop() {
        defer { close(listener) }
        // accept() waits in poll() with a short timeout and re-checks `stopped`, because a
        // shutdown() of the listening socket did not reliably wake a thread already in accept()
        // (seen under TSan): one stuck thread keeps the test process from exiting.
        while !stopped.load(ordering: .acquiring) {
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0, errno != EINTR { return }
            guard ready > 0 else { continue }
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            if stopped.load(ordering: .acquiring) {
                close(client)
                return
            }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            connections.withLock { _ = $0.insert(client) }
            events.record("connection")
            Thread.detachNewThread { [self] in
                serve(client)
                connections.withLock { fds in
                    fds.remove(client)
                    close(client)
                }
            }
        }
    }

    private func serve(_ fd: Int32) {
        var buffer: [UInt8] = []
        while let request = readRequest(fd, buffer: &buffer) {
            events.record("request:\(request.path)")
            events.record("request")
            if !respond(fd, to: request) { return }
        }
    }

    /// Sends the reply; `false` when the connection is finished with.
    private func respond(_ fd: Int32, to request: Request) -> Bool {
        switch handler(request) {
        case let .ok(body):
            return send(fd, head(200, length: body.count) + body)
        case let .status(code):
            let body = Array("status \(code)".utf8)
            return send(fd, head(code, length: body.count) + body)
        case let .headers(code, fields, body):
            let extra = fields.map { "\($0.name): \($0.value)\r\n" }.joined()
            return send(fd, head(code, length: body.count, extra: extra) + body)
        case let .gated(body, gate):
            let half = body.count / 2
            guard send(fd, head(200, length: body.count) + body[..<half]) else { return false }
            gate.wait { self.stopped.load(ordering: .acquiring) }
            return send(fd, Array(body[half...]))
        case let .endless(declared):
            let length = declared.map { "Content-Length: \($0)\r\n" } ?? "Connection: close\r\n"
            guard send(fd, Array("HTTP/1.1 200 OK\r\n\(length)Content-Type: image/jpeg\r\n\r\n".utf8)) else { return false }
            let zeros = [UInt8](repeating: 0, count: 64 << 10)
            while send(fd, zeros) { sent.add(zeros.count, ordering: .relaxed) }
            events.record("closed:\(request.path)")
            return false
        case let .trickle(interval):
            guard send(fd, head(200, length: 1000)) else { return false }
            let micros = useconds_t(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
            for _ in 0..<1000 {
                usleep(micros)   // the server's own pace, on its connection thread
                if !send(fd, [0]) { break }
            }
            events.record("closed:\(request.path)")
            return false
        case let .throttled(body, rate):
            guard send(fd, head(200, length: body.count)) else { return false }
            let run = 8 << 10
            let pause = useconds_t(Double(run) / Double(max(1, rate)) * 1_000_000)
            var start = 0
            while start < body.count {
                usleep(pause)   // the server's own pace, on its connection thread
                let end = min(start + run, body.count)
                guard send(fd, Array(body[start..<end])) else { return false }
                start = end
            }
            return true
        case .silent:
            var byte: UInt8 = 0
            while recv(fd, &byte, 1, 0) > 0 {}
            events.record("closed:\(request.path)")
            return false
        case let .redirect(location):
            let reply = "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\n\r\n"
            return send(fd, Array(reply.utf8))
        case let .stall(body):
            _ = send(fd, head(200, length: body.count) + body[..<(body.count / 2)])
            var byte: UInt8 = 0
            while recv(fd, &byte, 1, 0) > 0 {}   // returns 0 (or fails) once the client hangs up
            events.record("closed:\(request.path)")
            return false
        }
    }

    private func head(_ status: Int, length: Int, extra: String = "") -> [UInt8] {
        // A reply that names its own type (a browser's test document) gets no second one.
        let type = extra.lowercased().contains("content-type:") ? "" : "Content-Type: application/octet-stream\r\n"
        return Array("HTTP/1.1 \(status) X\r\nContent-Length: \(length)\r\n\(type)\(extra)\r\n".utf8)
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    private func readRequest(_ fd: Int32, buffer: inout [UInt8]) -> Request? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let text = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                var lines = text.components(separatedBy: "\r\n")
                let requestLine = lines.removeFirst().split(separator: " ")
                guard requestLine.count >= 2 else { return nil }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return Request(path: String(requestLine[1]), headers: headers)
            }
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }
}

/// A gate a server thread blocks on until the test opens it.
package final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let opened = Atomic<Bool>(false)

    package init() {}

    /// Blocks the calling thread until the gate opens. A test that fails before opening it must
    /// not leave the thread waiting forever: a thread of the heavy-work pool gives up after a
    /// minute; a server's thread, given `abandoned` (asked each second), when its server stops.
    /// A server's gate never opens by itself while the server runs (one that gave up after a
    /// minute let a held download finish in a loaded run, and the next one start); ten minutes,
    /// longer than any suite's time limit, bound it even so.
    package func wait(abandoned: (() -> Bool)? = nil) {
        let deadline = DispatchTime.now() + .seconds(abandoned == nil ? 60 : 600)
        while semaphore.wait(timeout: .now() + 1) == .timedOut {
            if abandoned?() == true || DispatchTime.now() >= deadline { return }
        }
        semaphore.signal()   // stays open for every later waiter
    }

    package func open() {
        if !opened.exchange(true, ordering: .relaxed) { semaphore.signal() }
    }
}
