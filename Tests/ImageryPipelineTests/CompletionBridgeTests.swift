import ImageryTestSupport
import Dispatch
@testable import Imagery
import ImageryCodecs
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(10)))
struct CompletionBridgeTests {
    let queue = DispatchQueue(label: "imagery.tests.callbacks")
    let marker = DispatchSpecificKey<String>()
    let calls = EventCounter()
    let onQueue = Locked<[Bool]>([])

    init() {
        queue.setSpecific(key: marker, value: "callbacks")
    }

    func callback(_ result: Result<ImageResponse, ImagePipelineError>) {
        onQueue.withLock { $0.append(DispatchQueue.getSpecific(key: marker) == "callbacks") }
        switch result {
        case .success: calls.record("success")
        case .failure(.cancelled): calls.record("cancelled")
        case .failure: calls.record("failure")
        }
        calls.record("any")
    }

    @Test("Calls back exactly once, on the requested queue")
    func callsBackOnce() async throws {
        let loader = ControlledLoader()
        loader.releaseAll()
        let pipeline = Fixtures.pipeline(loader: loader)

        pipeline.loadImage(with: ImageRequest(source: .controlled("x")), queue: queue) { callback($0) }
        await calls.wait(for: "any")
        await pipeline.waitUntilIdle()
        queue.sync {}   // anything else already scheduled on the queue has run

        #expect(calls.count("success") == 1)
        #expect(calls.count("any") == 1)
        #expect(onQueue.withLock { $0 } == [true])
    }

    @Test("A cancelled load calls back once with .cancelled, and never again")
    func cancelledCallsBackOnce() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)

        let task = pipeline.loadImage(with: ImageRequest(source: .controlled("y")), queue: queue) { callback($0) }
        await loader.events.wait(for: "started:y")
        task.cancel()
        task.cancel()
        await loader.events.wait(for: "cancelled:y")
        await pipeline.waitUntilIdle()
        queue.sync {}

        #expect(calls.count("cancelled") == 1)
        #expect(calls.count("any") == 1)
        #expect(onQueue.withLock { $0 } == [true])
    }

    @Test("A memory hit also calls back on the queue, not inline")
    func memoryHitCallsBackOnQueue() async throws {
        let loader = ControlledLoader()
        loader.releaseAll()
        let pipeline = Fixtures.pipeline(loader: loader)
        let request = ImageRequest(source: .controlled("z"))
        _ = try await pipeline.response(for: request)

        pipeline.loadImage(with: request, queue: queue) { callback($0) }
        await calls.wait(for: "any")
        #expect(onQueue.withLock { $0 } == [true])
    }
}
