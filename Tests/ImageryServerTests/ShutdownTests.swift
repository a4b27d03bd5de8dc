import AsyncHTTPClient
import Foundation
import GRDB
import Imagery
import ImageryDiskCache
import ImageryTestSupport
import NIOCore
import NIOHTTP1
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `imagery-server` executable itself, as a child process on 127.0.0.1, stopped by its PID.
@Suite("imagery-server as a process", .tags(.integration), .offUnderSanitizer, .timeLimit(.minutes(10)))
struct ShutdownTests {
    @Test(
        "SIGTERM lets every in-flight request finish, then the process exits 0",
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func gracefulShutdown() async throws {
        // Given an origin that holds three different images until the test opens its gate
        let gate = Gate()
        let origin = try TestHTTPServer { request in
            request.path.hasPrefix("/held-") ? .gated(Fixtures.rocket, gate: gate) : .status(404)
        }
        defer { origin.stop() }
        let shuttingDown = "shutting down"
        let server = try ServerProcess.start(["--port", "0", "--allow-loopback-sources", "--upstream-timeout", "300"], watching: [shuttingDown])
        defer { server.kill() }
        let port = try await server.port()

        // When three requests are in flight (each has reached the origin) and SIGTERM arrives
        let paths = (1...3).map { "/unsafe/w:100/plain/http://127.0.0.1:\(origin.port)/held-\($0).jpg" }
        let replies = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for path in paths {
                    group.addTask {
                        let response = try await HTTPClient.shared.execute(
                            HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(60)
                        )
                        _ = try await response.body.collect(upTo: 1 << 20)
                        return Int(response.status.code)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        for index in 1...3 { await origin.events.wait(for: "request:/held-\(index).jpg") }
        server.signal(SIGTERM)
        // The gate opens only once the server has begun shutting down, so the three requests
        // are still in flight while it does.
        #expect(await server.line(containing: shuttingDown), "the server never began shutting down")
        gate.open()

        // Then all three are answered in full, and the process ends cleanly
        #expect(try await replies.value == [200, 200, 200])
        #expect(await server.exitCode() == 0)
    }
}

extension ShutdownTests {
    @Test(
        "/metrics shows the pipeline's counters, requests by status, latency, in-flight and queued requests",
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func metrics() async throws {
        let origin = try TestHTTPServer { request in request.path == "/rocket.jpg" ? .ok(Fixtures.rocket) : .status(404) }
        defer { origin.stop() }
        let server = try ServerProcess.start(["--port", "0", "--allow-loopback-sources"])
        defer { server.kill() }
        let port = try await server.port()
        func get(_ path: String) async throws -> (Int, String) {
            let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 4 << 20)
            return (Int(response.status.code), String(buffer: body))
        }

        for width in [100, 100, 200] {
            #expect(try await get("/unsafe/w:\(width)/plain/http://127.0.0.1:\(origin.port)/rocket.jpg").0 == 200)
        }
        #expect(try await get("/unsafe/w:100/plain/http://127.0.0.1:\(origin.port)/missing.jpg").0 == 404)
        let (status, text) = try await get("/metrics")
        #expect(status == 200)
        let lines = Set(text.split(separator: "\n").map(String.init))
        for expected in [
            // w:100 twice (the second from the response cache), w:200, and the 404's attempt: one
            // after the other and with no disk cache, each size fetches the original again.
            "imagery_downloads_total 3",
            "imagery_requests_total 3",
            #"imagery_failures_total{kind="not_found"} 1"#,
            #"imagery_http_requests_total{status="200"} 3"#,
            #"imagery_http_requests_total{status="404"} 1"#,
            "imagery_http_request_duration_seconds_count 4",
            "imagery_http_requests_in_flight 1.0",   // this /metrics request itself
            "imagery_image_requests_queued 0.0",
        ] {
            #expect(lines.contains(expected), "\(expected) not in:\n\(text)")
        }
        #expect(text.contains("imagery_decodes_total"))
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
    }
}

extension ShutdownTests {
    @Test(
        "SIGTERM right after answering still lets every disk-cache write land before the process exits",
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func shutdownDrainsDiskWrites() async throws {
        let origin = try TestHTTPServer { request in request.path.hasPrefix("/photo-") ? .ok(Fixtures.rocket) : .status(404) }
        defer { origin.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-drain-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let draining = "draining response writes"
        // The server's writes wait on the lock this test holds for as long as it takes to make
        // six images and signal under a loaded CI run: the default 10 s is not enough there.
        let server = try ServerProcess.start(
            ["--port", "0", "--allow-loopback-sources", "--cache-dir", directory.path, "--cache-lock-timeout", "600"],
            watching: [draining]
        )
        defer { server.kill() }
        let port = try await server.port()

        // Given the cache's write lock held by this test, so the server's background writes wait
        var options = GRDB.Configuration()
        options.allowsUnsafeTransactions = true   // the transaction spans two accesses on purpose
        options.busyMode = .timeout(600)
        let lock = try DatabaseQueue(path: directory.appendingPathComponent("cache.sqlite").path, configuration: options)
        try await lock.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }

        // And 6 images answered, their disk writes begun and held
        for index in 0..<6 {
            let reply = try await Cluster.get(port: port, "/unsafe/rs:fit:\(64 + index):64/plain/http://127.0.0.1:\(origin.port)/photo-\(index).jpg")
            #expect(reply.status == 200)
        }
        let begun = Int(try await Cluster.metric(#"imagery_response_writes_total{tier="disk"}"#, port: port))
        #expect(begun >= 6)

        // When SIGTERM arrives, and the lock is released only once the server says it drains
        server.signal(SIGTERM)
        #expect(await server.line(containing: draining), "the server exited without draining")
        try await lock.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        #expect(await server.exitCode() == 0)

        // Then every write it began is in the cache
        let cache = try DiskCache(directory: directory.path)
        #expect(await cache.entryCount() == begun)
    }
}
