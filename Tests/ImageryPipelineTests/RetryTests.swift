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
            try await loader.loadData(for: .custom(id: "slow") { [] }) { _ in }
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
            try await loader.loadData(for: .custom(id: "hang") { [] }) { _ in }
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
            try await loader.loadData(for: .custom(id: "x") { [] }) { _ in }
        }
        #expect(attempts.withLock { $0 } == 1)
        #expect(delays.withLock { $0 }.isEmpty)
    }
    @Test("Only the first attempt's bytes reach `received`: a retried body starts again, and previews of two beginnings would be nonsense")
    func receivedFirstAttemptOnly() async throws {
        let loader = RetryingDataLoader(wrapping: DroppingLoader(attempts: Locked(0)), policy: RetryPolicy()) { _ in }
        let chunks = Locked<[[UInt8]]>([])
        let bytes = try await loader.loadData(for: .custom(id: "drop") { [] }, progress: { _ in }, received: { chunk in chunks.withLock { $0.append(chunk) } })
        #expect(bytes == [1, 2, 3, 4])
        #expect(chunks.withLock { $0 } == [[1, 2]])
    }
}

/// Hands over two bytes and drops the connection on its first attempt; answers whole on the next.
private struct DroppingLoader: DataLoading {
    let attempts: Locked<Int>

    func loadData(for source: ImageSource, progress: @escaping @Sendable (DataProgress) -> Void) async throws(DataLoadingError) -> [UInt8] {
        try await loadData(for: source, progress: progress, received: nil)
    }

    func loadData(
        for source: ImageSource, progress: @escaping @Sendable (DataProgress) -> Void, received: (@Sendable ([UInt8]) -> Void)?
    ) async throws(DataLoadingError) -> [UInt8] {
        let attempt = attempts.withLock { $0 += 1; return $0 }
        received?(attempt == 1 ? [1, 2] : [1, 2, 3, 4])
        if attempt == 1 { throw .connectionFailed(source: "drop", detail: "reset") }
        return [1, 2, 3, 4]
    }
}

/// A loader that fails every attempt with `error`, counting them.
private struct FailingLoader: DataLoading {
    let attempts: Locked<Int>
    let error: DataLoadingError

    func loadData(for source: ImageSource, progress: @escaping @Sendable (DataProgress) -> Void) async throws(DataLoadingError) -> [UInt8] {
        attempts.withLock { $0 += 1 }
        throw error
    }
}

/// A loader whose every attempt waits until it is cancelled, and records that it was.
private struct HangingLoader: DataLoading {
    let cancelled: Locked<Bool>

    func loadData(for source: ImageSource, progress: @escaping @Sendable (DataProgress) -> Void) async throws(DataLoadingError) -> [UInt8] {
        do {
            try await suspendUntilCancelled()
        } catch {
            cancelled.withLock { $0 = true }
        }
        throw .cancelled
    }
}
