import Foundation
import Imagery
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// The server's connections, timed and limited as imgproxy's are, seen from a client socket
/// made by hand on 127.0.0.1: what a request sent in part, a response left unread or a
/// connection kept open gets. Every wait ends on an event or within a limit far above the
/// server's timeout; nothing is timed.
@Suite("imagery-server connections: timeouts, keep-alive, connection limit", .timeLimit(.minutes(10)))
struct ConnectionTests {
    @Test("A request never finished is closed after --read-request-timeout, first byte to last, while keep-alive waits longer")
    func readRequestTimeout() async throws {
        // Given a server that reads a request within 2 s and keeps idle connections 300 s. (The
        // timer starts at accept, so a client that sends at once must be scheduled within it: at
        // 0.2 s a loaded two-core machine could miss that; the half-sent requests wait 2 s.)
        let server = try await ServerHarness.start {
            $0.readRequestTimeout = .seconds(2)
            $0.keepAliveTimeout = .seconds(300)
        }
        defer { server.cancel() }

        // When a client sends half a request head and nothing more
        let partialHead = try RawConnection.tcp(port: server.port)
        try partialHead.send("GET /health HTTP/1.1\r\nHost: test\r\n")
        // Then the server closes the connection without an answer
        let head = await partialHead.readUntilClosed()
        #expect(head.closed && head.bytes.isEmpty)

        // And a body that never ends, after a complete head, is cut the same way
        let partialBody = try RawConnection.tcp(port: server.port)
        try partialBody.send("GET /health HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n0123456789")
        let body = await partialBody.readUntilClosed()
        #expect(body.closed)

        // While a client that sends a whole request in time is answered, and may send another
        let kept = try RawConnection.tcp(port: server.port)
        for _ in 0..<2 {
            try kept.get("/health")
            let reply = try #require(await kept.readResponse())
            #expect(reply.head.hasPrefix("HTTP/1.1 200") && String(decoding: reply.body, as: UTF8.self) == "ok\n")
        }
    }

    @Test("An idle kept-alive connection is closed after --keep-alive-timeout; 0 turns keep-alive off")
    func keepAlive() async throws {
        let idle = try await ServerHarness.start { $0.keepAliveTimeout = .milliseconds(200) }
        defer { idle.cancel() }
        let connection = try RawConnection.tcp(port: idle.port)
        try connection.get("/health")
        let reply = try #require(await connection.readResponse())
        #expect(reply.head.hasPrefix("HTTP/1.1 200") && !reply.head.lowercased().contains("connection: close"))
        #expect(await connection.readUntilClosed().closed, "the idle connection stayed open")

        // With keep-alive off, every answer says so and the connection ends after it
        let off = try await ServerHarness.start { $0.keepAliveTimeout = .zero }
        defer { off.cancel() }
        let once = try RawConnection.tcp(port: off.port)
        try once.get("/health")
        let closing = await once.readUntilClosed()
        let text = String(decoding: closing.bytes, as: UTF8.self)
        #expect(closing.closed && text.hasPrefix("HTTP/1.1 200") && text.lowercased().contains("connection: close"))
        #expect(text.hasSuffix("ok\n"), "the whole answer arrives before the close")
    }

    @Test("Past --max-clients a connection waits in the backlog, and is served once another closes")
    func maximumClients() async throws {
        let server = try await ServerHarness.start { $0.maximumClients = 1 }
        defer { server.cancel() }
        // Given one connection served and kept open
        let first = try RawConnection.tcp(port: server.port)
        try first.get("/health")
        #expect(await first.readResponse() != nil)

        // When a second connects and asks, and the first asks again after it
        let second = try RawConnection.tcp(port: server.port)
        try second.get("/health")
        try first.get("/health")
        #expect(await first.readResponse() != nil, "the served connection is answered")
        // Then the second has had no answer while the first is open (the server was free to
        // answer it before the first's second request, had it accepted it)
        #expect(!second.hasArrived)

        // And once the first closes, the second is accepted and answered
        first.close()
        let reply = try #require(await second.readResponse())
        #expect(reply.head.hasPrefix("HTTP/1.1 200"))
    }

    @Test("--max-clients 0 sets no limit")
    func noClientLimit() async throws {
        let server = try await ServerHarness.start { $0.maximumClients = 0 }
        defer { server.cancel() }
        let connections = try (0..<3).map { _ in try RawConnection.tcp(port: server.port) }
        for connection in connections { try connection.get("/health") }
        for connection in connections.reversed() { #expect(await connection.readResponse() != nil) }
    }

    @Test("A request past --request-timeout is answered 503 at once, and the work is cancelled; /health is not timed")
    func requestTimeout() async throws {
        // Given an origin that sends half its image, then nothing until the client hangs up
        let origin = try TestHTTPServer { _ in .stall(Fixtures.rocket) }
        defer { origin.stop() }
        // The limit passes on a manual clock, once the download is under way: on a loaded
        // machine a real 0.3 s could pass before the origin is asked, leaving nothing to cancel.
        let clock = ManualClock()
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.requestTimeout = .milliseconds(300)
            $0.deadlineClock = clock
        }
        defer { server.cancel() }

        // When a request waits on the origin past the limit
        async let answer = server.get(ServerTests.plain(origin, "/rocket.jpg"))
        await origin.events.wait(for: "request:/rocket.jpg")
        await clock.untilSleeping()
        clock.advance(by: .milliseconds(300))
        let reply = try await answer

        // Then it gets 503 with imgproxy's word for it, never stored
        #expect(reply.status == 503 && reply.text.hasPrefix("timeout: the request took more than 0.3 s"))
        #expect(reply.header("cache-control") == "no-store" && reply.header("retry-after") == "1")
        #expect(server.metric(#"imagery_unavailable_total{reason="deadline"}"#) == 1)
        #expect(server.metric(#"imagery_unavailable_total{reason="queue"}"#) == 0)
        // And the download it waited for is cancelled: the origin sees the client leave
        await origin.events.wait(for: "closed:/rocket.jpg")
        #expect(try await server.get("/health").status == 200)
    }
}
