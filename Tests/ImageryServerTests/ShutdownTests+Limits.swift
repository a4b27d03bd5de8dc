import AsyncHTTPClient
import Foundation
import Imagery
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// imgproxy's server settings on the `imagery-server` executable, as an operator sets them:
/// through imgproxy's variables, over real sockets, stopped by PID.
extension ShutdownTests {
    @Test(
        "IMGPROXY_WRITE_RESPONSE_TIMEOUT: a response its client stops reading is cut off, and the connection closed",
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func writeResponseTimeout() async throws {
        // Given a 24 MB source served as it is (raw:1): more than both sockets' buffers hold
        let body = Fixtures.rocket + [UInt8](repeating: 0, count: (24 << 20) - Fixtures.rocket.count)
        let origin = try TestHTTPServer { _ in .ok(body) }
        defer { origin.stop() }
        let cut = "the response was not written"
        let server = try ServerProcess.start(
            ["--allow-loopback-sources", "--log-level", "debug"], watching: [cut],
            environment: ["IMGPROXY_BIND": "127.0.0.1:0", "IMGPROXY_WRITE_RESPONSE_TIMEOUT": "1"]
        )
        defer { server.kill() }
        let port = try await server.port()

        // When a client asks for it and reads nothing
        let client = try RawConnection.tcp(port: port, receiveBuffer: 4096)
        try client.get("/unsafe/raw:1/plain/http://127.0.0.1:\(origin.port)/big.jpg")

        // Then the server gives up writing and closes the connection: what arrives is less than the body
        #expect(await server.line(containing: cut), "the server never gave up writing")
        let received = await client.readUntilClosed()
        #expect(received.closed && received.bytes.count < body.count)
    }

    @Test(
        "IMGPROXY_GRACEFUL_STOP_TIMEOUT: SIGTERM waits that long for a request that never ends, then cancels it and the process exits 0",
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func gracefulStopTimeout() async throws {
        // Given a request held by an origin that never finishes its answer
        let origin = try TestHTTPServer { _ in .stall(Fixtures.rocket) }
        defer { origin.stop() }
        let cut = "the graceful stop took longer than --graceful-stop-timeout (1 s)"
        let server = try ServerProcess.start(
            ["--allow-loopback-sources", "--upstream-timeout", "600"], watching: [cut],
            environment: ["IMGPROXY_BIND": "127.0.0.1:0", "IMGPROXY_GRACEFUL_STOP_TIMEOUT": "1"]
        )
        defer { server.kill() }
        let port = try await server.port()
        let client = try RawConnection.tcp(port: port)
        try client.get("/unsafe/w:100/plain/http://127.0.0.1:\(origin.port)/held.jpg")
        await origin.events.wait(for: "request:/held.jpg")

        // When SIGTERM arrives
        server.signal(SIGTERM)

        // Then the stop is cut at its limit, said so, the download is cancelled and the process ends
        #expect(await server.line(containing: cut), "the stop was never cut")
        await origin.events.wait(for: "closed:/held.jpg")
        #expect(await server.exitCode() == 0)
        #expect(await client.readUntilClosed().closed)
    }

    @Test(
        "IMGPROXY_NETWORK=unix with IMGPROXY_BIND=/path: served over a Unix socket, whose file is removed at exit",
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func unixSocket() async throws {
        // A short directory: a socket's path must fit 108 bytes.
        let directory = "/tmp/imagery-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/imagery.sock"
        let server = try ServerProcess.start(
            ["--health-check-path", "/alive"], watching: ["unix:" + path],
            environment: ["IMGPROXY_NETWORK": "unix", "IMGPROXY_BIND": path]
        )
        defer { server.kill() }
        #expect(await server.line(containing: "unix:" + path), "the server never said it listens on the socket")

        for probe in ["/health", "/alive"] {
            let connection = try RawConnection.unix(path: path)
            try connection.get(probe)
            let reply = try #require(await connection.readResponse())
            #expect(reply.head.hasPrefix("HTTP/1.1 200") && reply.head.contains("X-Imagery-Instance: unix:\(path)"))
        }
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
        #expect(!FileManager.default.fileExists(atPath: path), "the socket file outlived the server")
    }

    @Test(
        "Settings that lower a guard are warned about at every start, by name",
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func loweredGuardsAreWarned() async throws {
        let warnings = [
            "--ignore-ssl-verification: origins' TLS certificates are NOT checked",
            "--allow-private-sources: URLs may make this server fetch from private networks",
            "--allow-link-local-sources: URLs may make this server fetch from link-local addresses",
        ]
        let server = try ServerProcess.start(
            [], watching: warnings,
            environment: [
                "IMGPROXY_BIND": "127.0.0.1:0", "IMGPROXY_IGNORE_SSL_VERIFICATION": "true",
                "IMGPROXY_ALLOW_PRIVATE_SOURCE_ADDRESSES": "true", "IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": "1",
            ]
        )
        defer { server.kill() }
        for warning in warnings { #expect(await server.line(containing: warning), "\(warning)") }
        // Stopped once it listens: its SIGTERM handler is in place by then.
        await server.ready()
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
    }
}
