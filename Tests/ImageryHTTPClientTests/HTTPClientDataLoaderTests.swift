import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryHTTPClient
import ImageryTestSupport
import Testing

/// The AsyncHTTPClient loader against misbehaving servers on 127.0.0.1: bounded memory at line
/// rate, a total deadline, no busy waiting, and redirects checked hop by hop. The figures that
/// parallel tests would blur (peak memory, CPU time) are read from a child process.
@Suite(.timeLimit(.minutes(10)))
struct HTTPClientDataLoaderTests {
    static let probe = ChildProcess.executable("imagery-load-probe")

    func load(
        _ url: URL, configure: (inout HTTPClientDataLoader.Configuration) -> Void = { _ in }
    ) async throws -> Result<[UInt8], DataLoadingError> {
        var configuration = HTTPClientDataLoader.Configuration()
        configure(&configuration)
        let loader = HTTPClientDataLoader(configuration: configuration)
        let result: Result<[UInt8], DataLoadingError>
        do throws(DataLoadingError) {
            result = .success(try await loader.loadData(for: .url(url)) { _ in })
        } catch {
            result = .failure(error)
        }
        try await loader.shutdown()
        return result
    }

    @Test("An image loads, with an Accept header naming image formats")
    func loads() async throws {
        let server = try TestHTTPServer { request in
            request.headers["accept"]?.hasPrefix("image/jpeg") == true ? .ok(Fixtures.rocket) : .status(406)
        }
        defer { server.stop() }
        #expect(try await load(server.url("/rocket.jpg")).get() == Fixtures.rocket)
    }

    @Test("The Accept header names exactly the formats given, in a stable order")
    func acceptHeader() {
        #expect(HTTPClientDataLoader.Configuration().accept == "image/jpeg,image/png,image/gif,image/webp,image/*;q=0.8")
        #expect(HTTPClientDataLoader.Configuration.accept(Set([.png, .jpeg])) == "image/jpeg,image/png,image/*;q=0.8")
    }

    @Test("A body of several megabytes arrives whole, across the accumulator's segments")
    func largeBody() async throws {
        var generator = SplitMix64(state: 7)
        let body = (0..<(3 << 20) + 12_345).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let server = try TestHTTPServer { _ in .ok(body) }
        defer { server.stop() }
        #expect(try await load(server.url("/large.jpg")).get() == body)
    }

    @Test("A 2xx body streams as it arrives: its first half is read while the server holds back the second; an error's body is never handed on")
    func bodyStreams() async throws {
        var generator = SplitMix64(state: 11)
        let body = (0..<(1 << 20) + 777).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let gate = Gate()
        defer { gate.open() }
        let server = try TestHTTPServer { request in request.path == "/missing.jpg" ? .status(404) : .gated(body, gate: gate) }
        defer { server.stop() }
        try await HTTPClientDataLoader().shuttingDown { loader in
            let response = try await loader.response(for: .url(server.url("/body.jpg")))
            #expect(response.expectedLength == Int64(body.count))
            var iterator = response.body.makeAsyncIterator()
            var received: [UInt8] = [], chunks = 0
            // The server sends the first half and waits: these bytes can only have come before the rest was sent
            while received.count < body.count / 2, let chunk = try await iterator.next() {
                received += chunk
                chunks += 1
            }
            #expect(received.count == body.count / 2)
            gate.open()
            while let chunk = try await iterator.next() {
                received += chunk
                chunks += 1
            }
            #expect(received == body)
            #expect(chunks > 2)

            await #expect(throws: DataLoadingError.notFound(source: server.url("/missing.jpg").absoluteString)) {
                _ = try await loader.response(for: .url(server.url("/missing.jpg")))
            }
        }
    }

    @Test("A declared 10 GB body is refused from its Content-Length, before the body is read")
    func declaredTooLarge() async throws {
        let server = try TestHTTPServer { _ in .endless(declared: 10_000_000_000) }
        defer { server.stop() }
        let url = server.url("/huge.jpg")
        let result = try await load(url) { $0.maximumResponseSize = 4 << 20 }
        #expect(result == .failure(.tooLarge(source: url.absoluteString, limit: 4 << 20)))
        await server.events.wait(for: "closed:/huge.jpg")
    }

    @Test("An endless body at loopback speed fails at the limit, within twice the limit of memory, and the connection closes", .tags(.integration), .offUnderSanitizer,
          .enabled(if: probe != nil, "the imagery-load-probe executable is not beside the test bundle"))
    func endlessBodyMemory() async throws {
        let probe = try #require(Self.probe)
        let server = try TestHTTPServer { request in
            request.path == "/small.jpg" ? .ok(Fixtures.rocket) : .endless(declared: nil)
        }
        defer { server.stop() }
        // 16 MiB: large enough that the figure measures the limit, not the few megabytes that
        // NIO's threads and buffers add whatever the limit (seen: 15.0 to 15.7 MiB of growth over
        // an idle 45 MB, in full parallel runs).
        let limit = 16 << 20
        let idle = try await ChildProcess.measure(probe, [server.url("/small.jpg").absoluteString, "--limit", "\(limit)"])
        let endless = try await ChildProcess.measure(probe, [server.url("/endless.jpg").absoluteString, "--limit", "\(limit)"])
        #expect(idle.exitCode == 0)
        #expect(endless.exitCode == 1)
        await server.events.wait(for: "closed:/endless.jpg")
        let growth = endless.peakRSS - idle.peakRSS
        // The body held up to the limit shows: the figure is the probe's own, not this process's.
        #expect(growth > limit / 2, "peak RSS grew by only \(growth >> 10) KB (idle \(idle.peakRSS >> 10) KB, endless \(endless.peakRSS >> 10) KB)")
        #expect(growth < 2 * limit, "peak RSS grew by \(growth >> 10) KB (idle \(idle.peakRSS >> 10) KB, endless \(endless.peakRSS >> 10) KB) loading an endless body with a \(limit >> 20) MiB limit")
    }

    @Test("A body at one byte a second fails at the total deadline; a local file loads meanwhile")
    func totalDeadline() async throws {
        let server = try TestHTTPServer { _ in .trickle(interval: .seconds(1)) }
        defer { server.stop() }
        var configuration = HTTPClientDataLoader.Configuration()
        configuration.totalDeadline = .seconds(2)
        let loader = HTTPClientDataLoader(configuration: configuration)
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.dataLoader = loader
            $0.maximumConcurrentDownloads = 1
        })
        let url = server.url("/slow.jpg")
        let slow = pipeline.imageTask(with: ImageRequest(url: url))
        await pipeline.graph.waitUntil { $0.downloads.running == 1 }

        let file = Fixtures.directory.appendingPathComponent("jpeg_small_base_rocket_640x427.jpg")
        #expect(try await pipeline.response(for: ImageRequest(url: file)).image.width == 640)
        await #expect(throws: ImagePipelineError.loadingFailed(.timedOut(source: url.absoluteString))) { try await slow.response }
        await server.events.wait(for: "closed:/slow.jpg")
        try await loader.shutdown()
    }

    @Test("A body that trickles past the deadline is not requested again by the retrying loader")
    func trickleIsNotRetried() async throws {
        let server = try TestHTTPServer { _ in .trickle(interval: .milliseconds(200)) }
        defer { server.stop() }
        var configuration = HTTPClientDataLoader.Configuration()
        configuration.totalDeadline = .seconds(1)
        let loader = HTTPClientDataLoader(configuration: configuration)
        let retrying = RetryingDataLoader(wrapping: loader) { _ in }
        let url = server.url("/trickle.jpg")
        await #expect(throws: DataLoadingError.timedOut(source: url.absoluteString)) {
            try await retrying.loadData(for: .url(url)) { _ in }
        }
        await server.events.wait(for: "closed:/trickle.jpg")
        try await loader.shutdown()
        #expect(server.hits("/trickle.jpg") == 1)
    }

    @Test("Waiting on a server that never answers costs almost no CPU", .tags(.integration), .offUnderSanitizer,
          .enabled(if: probe != nil, "the imagery-load-probe executable is not beside the test bundle"))
    func silentServerCPU() async throws {
        let probe = try #require(Self.probe)
        let server = try TestHTTPServer { _ in .silent }
        defer { server.stop() }
        let waited = try await ChildProcess.run(probe, [server.url("/silent.jpg").absoluteString, "--idle", "2"])
        #expect(waited.exitCode == 1)
        #expect(waited.wallSeconds >= 2)
        #expect(waited.cpuSeconds < waited.wallSeconds / 4, "used \(waited.cpuSeconds) s of CPU in \(waited.wallSeconds) s")
    }

    @Test("A redirect loop is one short chain and a permanent error; every hop passes the hop check")
    func redirects() async throws {
        let server = try TestHTTPServer { request in .redirect(request.path == "/a.jpg" ? "/b.jpg" : "/a.jpg") }
        defer { server.stop() }
        let url = server.url("/a.jpg")
        let hops = Locked<[String]>([])
        let result = try await load(url) { configuration in
            configuration.hopCheck = { url in hops.withLock { $0.append(url.path) } }
        }
        #expect(result == .failure(.redirectRefused(source: url.absoluteString, detail: "a redirect loop after 1 redirects")))
        #expect(server.events.count("request") == 2)
        #expect(hops.withLock { $0 } == ["/a.jpg", "/b.jpg"])

        // A hop check that refuses stops the chain before the request is sent.
        let refusing = try await load(url) { configuration in
            configuration.hopCheck = { url throws(DataLoadingError) in
                if url.path == "/b.jpg" { throw .redirectRefused(source: url.absoluteString, detail: "refused by the hop check") }
            }
        }
        #expect(refusing == .failure(.redirectRefused(source: server.url("/b.jpg").absoluteString, detail: "refused by the hop check")))
        #expect(server.events.count("request") == 3)
    }
}

extension HTTPClientDataLoader {
    /// `body` with this loader, which is shut down however `body` ends: a loader released
    /// without it traps in AsyncHTTPClient's debug check, which would end the whole test run
    /// on one test's failed `try`, not that test.
    func shuttingDown<T>(_ body: (HTTPClientDataLoader) async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body(self)
        } catch {
            try? await shutdown()
            throw error
        }
        try await shutdown()
        return result
    }
}
