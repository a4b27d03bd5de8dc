import ImageryTestSupport
import Foundation
@testable import Imagery
import ImageryCodecs
import Testing

@Suite(.timeLimit(.minutes(10)))
struct LoadingTests {
    @Test("Files load by path and by file:// URL; a missing file reads as not found")
    func files() async throws {
        let pipeline = Fixtures.pipeline()
        let url = Fixtures.directory.appendingPathComponent("png_rgba_logo_500x500.png")

        let byPath = try await pipeline.response(for: ImageRequest(source: .file(url.path), resize: .width(50)))
        let byURL = try await pipeline.response(for: ImageRequest(url: url))

        #expect(byPath.image.width == 50)
        #expect(byURL.image.width == 500)
        await #expect(throws: ImagePipelineError.loadingFailed(.notFound(source: "/nonexistent/x.png"))) {
            try await pipeline.response(for: ImageRequest(source: .file("/nonexistent/x.png")))
        }
    }

    @Test("A custom closure source loads, and its errors carry the source id")
    func customClosure() async throws {
        struct Missing: Error {}
        let pipeline = Fixtures.pipeline()
        let ok = ImageRequest(source: .custom(id: "db/42") { Fixtures.gif })
        let broken = ImageRequest(source: .custom(id: "db/43") { throw Missing() })

        #expect(try await pipeline.response(for: ok).image.width == 256)
        await #expect(throws: ImagePipelineError.loadingFailed(.customSourceFailed(source: "custom:db/43", detail: "Missing()"))) {
            try await pipeline.response(for: broken)
        }
    }

    @Test("A response larger than the limit fails as too large")
    func oversizedResponse() async throws {
        let server = try TestHTTPServer { _ in .ok(Fixtures.meadow) }
        defer { server.stop() }
        var configuration = DataLoader.Configuration()
        configuration.maximumResponseSize = 10_000
        let pipeline = Fixtures.pipeline(loader: DataLoader(configuration: configuration))
        let url = server.url("/big.jpg")

        await #expect(throws: ImagePipelineError.loadingFailed(.tooLarge(source: url.absoluteString, limit: 10_000))) {
            try await pipeline.response(for: ImageRequest(url: url))
        }
    }

    @Test("Truncated and non-image bytes fail as decoding errors naming the source, never as a half image")
    func badBytes() async throws {
        let server = try TestHTTPServer { request in
            request.path == "/truncated.jpg" ? .ok(Array(Fixtures.rocket.prefix(20_000))) : .ok(Array("<html>".utf8))
        }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()

        for path in ["/truncated.jpg", "/page.html"] {
            await #expect {
                try await pipeline.response(for: ImageRequest(url: server.url(path)))
            } throws: { error in
                guard case let .decodingFailed(source, _) = error as? ImagePipelineError else { return false }
                return source.hasSuffix(path)
            }
        }
        #expect(pipeline.statistics.failures["decoding"] == 2)
    }

    @Test("A hostile header is refused before decoding, by the request's pixel limit")
    func pixelLimit() async throws {
        let pipeline = Fixtures.pipeline()
        var request = ImageRequest(source: .custom(id: "big") { Fixtures.meadow })
        request.maximumPixelCount = 1000
        await #expect(throws: ImagePipelineError.decodingFailed(source: "custom:big", .tooLarge(width: 1280, height: 1024, limit: 1000))) {
            try await pipeline.response(for: request)
        }
    }

    @Test("Unsupported URL schemes fail clearly")
    func unsupportedScheme() async throws {
        let pipeline = Fixtures.pipeline()
        await #expect {
            try await pipeline.response(for: ImageRequest(url: URL(string: "ftp://example.com/a.jpg")!))
        } throws: { error in
            guard case .loadingFailed(.unsupportedSource) = error as? ImagePipelineError else { return false }
            return true
        }
    }

    @Test("events(for:) reports progress, then the image")
    func events() async throws {
        let server = try TestHTTPServer { _ in .ok(Fixtures.meadow) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()

        var progress: [DataProgress] = []
        var finished: ImageResponse?
        for try await event in pipeline.events(for: ImageRequest(url: server.url("/m.jpg"), resize: .width(100))) {
            switch event {
            case let .progress(value):
                #expect(finished == nil)
                progress.append(value)
            case .preview:
                Issue.record("no previews were asked for")
            case let .finished(response):
                finished = response
            }
        }
        #expect(finished?.image.width == 100)
        #expect(progress.last?.total == Int64(Fixtures.meadow.count))
        #expect(progress.map(\.completed) == progress.map(\.completed).sorted())
    }

    @Test("The latency decorator waits a delay from its range before loading")
    func latency() async throws {
        let waited = Locked<[Duration]>([])
        let loader = LatencySimulatingDataLoader(wrapping: DataLoader(), delay: .milliseconds(300)...(.milliseconds(1500))) { delay in
            waited.withLock { $0.append(delay) }
        }
        let pipeline = Fixtures.pipeline(loader: loader)
        for index in 0..<5 {
            _ = try await pipeline.response(for: ImageRequest(source: .custom(id: "slow-\(index)") { Fixtures.gif }))
        }
        let delays = waited.withLock { $0 }
        #expect(delays.count == 5)
        #expect(delays.allSatisfy { $0 >= .milliseconds(300) && $0 <= .milliseconds(1500) })
    }

    @Test("Prefetch warms the cache at low priority; one failure does not stop the rest")
    func prefetch() async throws {
        let pipeline = Fixtures.pipeline()
        let good = (0..<6).map { index in ImageRequest(source: .custom(id: "p\(index)") { Fixtures.gif }, resize: .width(32)) }
        let bad = ImageRequest(source: .custom(id: "broken") { Array("not an image".utf8) })

        let report = await pipeline.prefetch(good + [bad] + [good[0]], maximumConcurrent: 2)

        #expect(report.loaded + report.alreadyCached == 7)
        #expect(report.failures.count == 1)
        #expect(report.failures.first?.request.source.identity == "custom:broken")
        for request in good { #expect(pipeline.cachedImage(for: request) != nil) }
    }

    @Test("cancelPrefetch stops prefetches that have not finished")
    func cancelPrefetch() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)
        let requests = (0..<4).map { ImageRequest(source: .controlled("q\($0)")) }

        async let report = pipeline.prefetch(requests, maximumConcurrent: 2)
        await loader.events.wait(for: "started:q0")
        await loader.events.wait(for: "started:q1")
        pipeline.cancelPrefetch(requests)
        let result = await report

        #expect(result.cancelled == 4)
        #expect(loader.events.count("started:q2") == 0)
        #expect(loader.events.count("started:q3") == 0)
    }

    @Test("A source's description hides its query and credentials")
    func redaction() {
        let source = ImageSource.url(URL(string: "https://user:pw@cdn.example.com/a.jpg?X-Amz-Signature=secret")!,
                                     headers: ["Authorization": "Bearer secret"])
        #expect(!source.description.contains("secret"))
        #expect(!source.description.contains("pw"))
        #expect(!source.identity.contains("Bearer"))
        #expect(source.description.hasPrefix("https://cdn.example.com/a.jpg?"))
    }
}
