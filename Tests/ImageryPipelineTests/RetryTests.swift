import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(3)))
struct RetryTests {
    let delays = Locked<[Duration]>([])

    func retryingLoader(attempts: Int = 3) -> RetryingDataLoader {
        var policy = RetryPolicy()
        policy.maximumAttempts = attempts
        // The sleep double records each backoff instead of waiting it out.
        return RetryingDataLoader(wrapping: DataLoader(), policy: policy) { [delays] delay in
            delays.withLock { $0.append(delay) }
        }
    }

    @Test("503 is retried with growing backoff until the attempts run out")
    func retriesServiceUnavailable() async throws {
        let server = try TestHTTPServer { _ in .status(503) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline(loader: retryingLoader(attempts: 4))

        await #expect(throws: ImagePipelineError.self) {
            try await pipeline.image(for: ImageRequest(url: server.url("/busy.jpg")))
        }

        #expect(server.hits("/busy.jpg") == 4)
        let recorded = delays.withLock { $0 }
        #expect(recorded.count == 3)
        // 200 ms doubling, each drawn from 50–100% of its step: the steps never overlap.
        #expect(recorded[0] >= .milliseconds(100) && recorded[0] <= .milliseconds(200))
        #expect(recorded[1] >= .milliseconds(200) && recorded[1] <= .milliseconds(400))
        #expect(recorded[2] >= .milliseconds(400) && recorded[2] <= .milliseconds(800))
        #expect(pipeline.statistics.failures["http_5xx"] == 1)
    }

    @Test("A 503 that recovers delivers the image")
    func recoversAfterServiceUnavailable() async throws {
        let calls = Atomic<Int>(0)
        let server = try TestHTTPServer { _ in
            calls.wrappingAdd(1, ordering: .relaxed).newValue < 3 ? .status(503) : .ok(Fixtures.logo)
        }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline(loader: retryingLoader())

        let response = try await pipeline.image(for: ImageRequest(url: server.url("/flaky.png")))

        #expect(response.image.width == 500)
        #expect(server.hits("/flaky.png") == 3)
    }

    @Test("404 is not retried and reads as not found")
    func notFoundIsNotRetried() async throws {
        let server = try TestHTTPServer { _ in .status(404) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline(loader: retryingLoader())
        let url = server.url("/missing.jpg")

        await #expect(throws: ImagePipelineError.loadingFailed(.notFound(source: url.absoluteString))) {
            try await pipeline.image(for: ImageRequest(url: url))
        }
        #expect(server.hits("/missing.jpg") == 1)
        #expect(delays.withLock { $0 }.isEmpty)
        #expect(pipeline.statistics.failures["not_found"] == 1)
    }

    @Test("Other 4xx are not retried and carry their status")
    func forbiddenIsNotRetried() async throws {
        let server = try TestHTTPServer { _ in .status(403) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline(loader: retryingLoader())
        let url = server.url("/forbidden.jpg")

        await #expect(throws: ImagePipelineError.loadingFailed(.httpStatus(403, source: url.absoluteString))) {
            try await pipeline.image(for: ImageRequest(url: url))
        }
        #expect(server.hits("/forbidden.jpg") == 1)
    }

    @Test("A refused connection is retried")
    func connectionRefusedIsRetried() async throws {
        let server = try TestHTTPServer { _ in .ok([]) }
        let url = server.url("/gone.jpg")
        server.stop()
        let pipeline = Fixtures.pipeline(loader: retryingLoader(attempts: 2))

        await #expect {
            try await pipeline.image(for: ImageRequest(url: url))
        } throws: { error in
            guard case let .loadingFailed(loading) = error as? ImagePipelineError else { return false }
            return loading.kind == "connection"
        }
        #expect(delays.withLock { $0 }.count == 1)
    }
}
