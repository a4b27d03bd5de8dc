import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(10)))
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
            try await pipeline.response(for: ImageRequest(url: server.url("/busy.jpg")))
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

        let response = try await pipeline.response(for: ImageRequest(url: server.url("/flaky.png")))

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
            try await pipeline.response(for: ImageRequest(url: url))
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
            try await pipeline.response(for: ImageRequest(url: url))
        }
        #expect(server.hits("/forbidden.jpg") == 1)
    }

    @Test("A refused connection is retried")
    func connectionRefusedIsRetried() async throws {
        // A port held bound and not listening for the whole test: connections are refused,
        // and no neighbour's server can take it meanwhile.
        let refusing = try RefusingPort()
        let url = URL(string: "http://127.0.0.1:\(refusing.port)/gone.jpg")!
        let pipeline = Fixtures.pipeline(loader: retryingLoader(attempts: 2))

        await #expect {
            try await pipeline.response(for: ImageRequest(url: url))
        } throws: { error in
            guard case let .loadingFailed(loading) = error as? ImagePipelineError else { return false }
            return loading.kind == "connection"
        }
        #expect(delays.withLock { $0 }.count == 1)
        withExtendedLifetime(refusing) {}
    }

    @Test("A timeout is not retried: the source was reached, and would only be slow again")
    func timeoutIsNotRetried() async throws {
        let attempts = Locked(0)
        let loader = RetryingDataLoader(wrapping: FailingLoader(attempts: attempts, error: .timedOut(source: "slow"))) { _ in }
        await #expect(throws: DataLoadingError.timedOut(source: "slow")) {
            try await loader.loadData(for: .custom(id: "slow") { [] })
        }
        #expect(attempts.withLock { $0 } == 1)
    }

    @Test("The deadline holds for all attempts together: a source that never answers fails at it, cancelled")
    func deadlineBoundsEveryAttempt() async throws {
        var policy = RetryPolicy()
        policy.deadline = .milliseconds(200)
        let cancelled = Locked(false)
        let loader = RetryingDataLoader(wrapping: HangingLoader(cancelled: cancelled), policy: policy) { _ in }
        await #expect(throws: DataLoadingError.timedOut(source: "custom:hang")) {
            try await loader.loadData(for: .custom(id: "hang") { [] })
        }
        #expect(cancelled.withLock { $0 })
    }

    @Test("No retry starts whose wait would end past the deadline")
    func noWaitPastTheDeadline() async throws {
        var policy = RetryPolicy()
        policy.deadline = .seconds(1)
        policy.initialDelay = .seconds(5)
        policy.jitter = 0
        let attempts = Locked(0)
        let loader = RetryingDataLoader(
            wrapping: FailingLoader(attempts: attempts, error: .connectionFailed(source: "x", detail: "refused")), policy: policy
        ) { [delays] delay in delays.withLock { $0.append(delay) } }
        await #expect(throws: DataLoadingError.connectionFailed(source: "x", detail: "refused")) {
            try await loader.loadData(for: .custom(id: "x") { [] })
        }
        #expect(attempts.withLock { $0 } == 1)
        #expect(delays.withLock { $0 }.isEmpty)
    }
    @Test("A body that breaks off resumes on the next attempt: the reader sees one body, each byte once")
    func resumesAfterDroppedBody() async throws {
        let attempts = Locked(0)
        let loader = RetryingDataLoader(wrapping: DroppingLoader(attempts: attempts, second: [1, 2, 3, 4]), policy: RetryPolicy()) { _ in }
        let response = try await loader.response(for: .custom(id: "drop") { [] })
        var chunks: [[UInt8]] = []
        for try await chunk in response.body { chunks.append(chunk) }
        #expect(chunks == [[1, 2], [3, 4]])
        #expect(attempts.withLock { $0 } == 2)
    }

    @Test("A source whose bytes changed between attempts fails, naming why, and is not tried again")
    func changedSourceIsNotResumed() async throws {
        let attempts = Locked(0)
        let loader = RetryingDataLoader(wrapping: DroppingLoader(attempts: attempts, second: [9, 9, 3, 4]), policy: RetryPolicy()) { _ in }
        await #expect(throws: DataLoadingError.connectionFailed(source: "custom:drop", detail: "the source changed between attempts")) {
            try await loader.loadData(for: .custom(id: "drop") { [] })
        }
        #expect(attempts.withLock { $0 } == 2)
    }
}

/// Hands over two bytes of four and drops the connection on its first attempt; answers
/// `second` whole on the next.
private struct DroppingLoader: DataLoading {
    let attempts: Locked<Int>
    let second: [UInt8]

    func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        let attempt = attempts.withLock { $0 += 1; return $0 }
        guard attempt == 1 else { return DataResponse(bytes: second) }
        return try await DataResponse.streaming { sink throws(DataLoadingError) in
            sink.begin(expectedLength: 4)
            try await sink.send([1, 2])
            throw .connectionFailed(source: "drop", detail: "reset")
        }
    }
}

/// A loader that fails every attempt with `error`, counting them.
private struct FailingLoader: DataLoading {
    let attempts: Locked<Int>
    let error: DataLoadingError

    func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        attempts.withLock { $0 += 1 }
        throw error
    }
}

/// A loader whose every attempt waits until it is cancelled, and records that it was.
private struct HangingLoader: DataLoading {
    let cancelled: Locked<Bool>

    func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        do {
            try await suspendUntilCancelled()
        } catch {
            cancelled.withLock { $0 = true }
        }
        throw .cancelled
    }
}
