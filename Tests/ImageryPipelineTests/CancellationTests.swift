import ImageryTestSupport
import Foundation
@testable import Imagery
import ImageryCodecs
import Testing

@Suite(.timeLimit(.minutes(10)))
struct CancellationTests {
    @Test("Cancelling 1 of 3 waiters still delivers the image to the other 2, from one download")
    func cancelOneOfThree() async throws {
        let gate = Gate()
        let server = try TestHTTPServer { _ in .gated(Fixtures.rocket, gate: gate) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        let request = ImageRequest(url: server.url("/shared.jpg"), resize: .fit(width: 100, height: 100))

        let tasks = (0..<3).map { _ in pipeline.imageTask(with: request) }
        await pipeline.graph.waitUntil { $0.registeredCount == 3 }
        await server.events.wait(for: "request:/shared.jpg")

        tasks[0].cancel()
        await pipeline.graph.waitUntil { $0.registeredCount == 2 }
        gate.open()

        await #expect(throws: ImagePipelineError.cancelled) { try await tasks[0].response }
        #expect(try await tasks[1].response.image.width == 100)
        #expect(try await tasks[2].response.image.width == 100)
        #expect(server.hits("/shared.jpg") == 1)
    }

    @Test("Cancelling all 3 waiters closes the connection at the server and frees the graph")
    func cancelAllThree() async throws {
        let server = try TestHTTPServer { _ in .stall(Fixtures.meadow) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        let request = ImageRequest(url: server.url("/stalled.jpg"))

        let callers = (0..<3).map { _ in Task { try await pipeline.response(for: request) } }
        await pipeline.graph.waitUntil { $0.registeredCount == 3 }
        await server.events.wait(for: "request:/stalled.jpg")

        for caller in callers { caller.cancel() }

        await server.events.wait(for: "closed:/stalled.jpg")
        for caller in callers {
            await #expect(throws: ImagePipelineError.cancelled) { try await caller.value }
        }
        await pipeline.waitUntilIdle()
        #expect(pipeline.statistics.failures["cancelled"] == 3)
    }

    @Test("When the last waiter leaves, the loader sees cancellation; others' work is untouched")
    func lastWaiterCancelsLoad() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)
        let lonely = pipeline.imageTask(with: ImageRequest(source: .controlled("lonely")))
        let shared = ImageRequest(source: .controlled("shared"))
        let sharedTasks = [pipeline.imageTask(with: shared), pipeline.imageTask(with: shared)]
        await loader.events.wait(for: "started:lonely")
        await loader.events.wait(for: "started:shared")

        lonely.cancel()
        sharedTasks[0].cancel()
        await loader.events.wait(for: "cancelled:lonely")
        loader.release("shared")

        #expect(try await sharedTasks[1].response.image.width == 640)
        #expect(loader.events.count("cancelled:shared") == 0)
        await pipeline.waitUntilIdle()
    }

    @Test("A task cancelled before it reaches the graph never starts a download")
    func cancelBeforeStart() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await pipeline.response(for: ImageRequest(source: .controlled("never")))
        }
        await #expect(throws: ImagePipelineError.cancelled) { try await task.value }
        await pipeline.waitUntilIdle()
        #expect(loader.events.count("started:never") == 0)
    }
}

/// Decodes with the real decoder, but holds any decode of `held` bytes until the test opens
/// the gate, so that the single decode slot stays taken while other work queues behind it.
struct HoldingDecoder: ImageDecoding {
    let held: [UInt8]
    let gate: Gate
    let decoded: EventCounter

    func decode(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> Bitmap {
        if data == held { gate.wait() }
        decoded.record("decode:\(data.count)")
        return try ImageDecoder().decode(data, options: options)
    }
}

/// Its tests (here, in `DecodingBudgetTests.swift` and `HeavyWorkTests.swift`) each hold a
/// decode on a blocked thread. Serialized, they hold one at a time: two at once would hold both
/// threads of a 2-core machine, and every other test would wait for the gate's one-minute limit.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct DecodeCancellationTests {
    @Test("Cancelling a request whose bytes have arrived drops its queued decode")
    func cancelReachesDecodeStage() async throws {
        let gate = Gate()
        let decoded = EventCounter()
        let loader = ControlledLoader { id in id == "first" ? Fixtures.rocket : Fixtures.logo }
        loader.releaseAll()
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.dataLoader = loader
            $0.decoder = HoldingDecoder(held: Fixtures.rocket, gate: gate, decoded: decoded)
            $0.maximumConcurrentDecodes = 1
        })

        // Given the only decode slot taken, and a second request's bytes loaded and queued
        let first = pipeline.imageTask(with: ImageRequest(source: .controlled("first")))
        let second = pipeline.imageTask(with: ImageRequest(source: .controlled("second")))
        await loader.events.wait(for: "finished:first")
        await loader.events.wait(for: "finished:second")
        await pipeline.graph.waitUntil { $0.decodes.running == 1 && $0.decodes.waitingCount == 1 }

        // When the second is cancelled and the first released
        second.cancel()
        await pipeline.graph.waitUntil { $0.decodes.waitingCount == 0 }
        gate.open()

        // Then only the first was ever decoded
        #expect(try await first.response.image.width == 640)
        await #expect(throws: ImagePipelineError.cancelled) { try await second.response }
        await pipeline.waitUntilIdle()
        #expect(decoded.count("decode:\(Fixtures.rocket.count)") == 1)
        #expect(decoded.count("decode:\(Fixtures.logo.count)") == 0)
    }
}
