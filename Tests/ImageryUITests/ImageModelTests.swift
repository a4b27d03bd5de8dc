import Foundation
@testable import Imagery
import ImageryTestSupport
import ImageryUI
import Testing

@MainActor
@Suite(.timeLimit(.minutes(10)))
struct ImageModelTests {
    @Test("A loading request moves through empty, loading with the download's progress, and success")
    func phasesOfALoad() async throws {
        // Given a server that sends half of a JPEG, then waits
        let body = Fixtures.rocket
        let gate = Gate()
        let server = try TestHTTPServer { _ in .gated(body, gate: gate) }
        defer { server.stop() }
        let model = ImageModel(pipeline: Fixtures.pipeline())
        let request = ImageRequest(url: server.url("/rocket.jpg"))
        let recorder = FrameRecorder { model.phase(for: request) }

        // When the model loads it
        model.load(request)
        #expect(model.phase.isLoading)   // synchronously: the view never shows "empty" once asked
        await waitUntil(model) { $0.progress?.completed == Int64(body.count / 2) }
        #expect(model.phase.progress?.total == Int64(body.count))
        gate.open()
        await waitUntil(model) { $0.response != nil }

        // Then the phases went empty → loading → loading 49% → success, in that order
        let response = try #require(model.phase.response)
        #expect(response.origin == .source)
        #expect(response.image.width == 640 && response.image.height == 427)
        await waitUntil(model) { _ in recorder.frames.last?.response != nil }
        let labels = recorder.labels
        #expect(labels.first == "empty")
        #expect(labels.last == "success source")
        #expect(labels.contains("loading \(Int(Double(body.count / 2) / Double(body.count) * 100))%"))
        let order = labels.map { $0.hasPrefix("empty") ? 0 : $0.hasPrefix("loading") ? 1 : 2 }
        #expect(order == order.sorted(), "phases went backwards: \(labels)")
        #expect(!model.isLoading)
    }

    @Test("Cancelling on disappear stops the download; another viewer of the same image is unaffected")
    func cancelOnDisappear() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)
        let shared = ImageRequest(source: .controlled("shared"))

        // Given two views showing the same image, each bound through its view task
        let first = ImageModel(pipeline: pipeline), second = ImageModel(pipeline: pipeline)
        let firstView = Task { await first.bind(shared, onDisappear: .cancel) }
        let secondView = Task { await second.bind(shared, onDisappear: .cancel) }
        await loader.events.wait(for: "started:shared")
        await pipeline.graph.waitUntil { $0.registeredCount == 2 }

        // When the first disappears (SwiftUI cancels its task)
        firstView.cancel()
        await firstView.value

        // Then it is back to empty, the second still loads, and the one download goes on
        #expect(first.phase.label == "empty")
        #expect(second.phase.isLoading)
        await pipeline.graph.waitUntil { $0.registeredCount == 1 }
        #expect(loader.events.count("cancelled:shared") == 0)
        loader.release("shared")
        await waitUntil(second) { $0.response != nil }
        #expect(first.phase.label == "empty")
        #expect(pipeline.statistics.downloads == 1)

        // And when the last viewer of an image disappears, its download is cancelled
        let alone = ImageModel(pipeline: pipeline)
        let aloneView = Task { await alone.bind(ImageRequest(source: .controlled("alone"))) }
        await loader.events.wait(for: "started:alone")
        aloneView.cancel()
        await loader.events.wait(for: "cancelled:alone")
        await pipeline.waitUntilIdle()
        #expect(alone.phase.label == "empty")
        secondView.cancel()
        await secondView.value
        #expect(second.phase.response != nil)   // a shown image stays when its view is cancelled
    }

    @Test("Lowering priority on disappear lets work for visible views start first")
    func lowerPriorityOnDisappear() async throws {
        // Given one download slot taken by a blocker, and two views queued behind it in order
        let (loader, pipeline) = await pipelineWithItsOnlySlotTaken()
        let scrolledAway = ImageModel(pipeline: pipeline), visible = ImageModel(pipeline: pipeline)
        let scrolledAwayView = Task {
            await scrolledAway.bind(ImageRequest(source: .controlled("away")), onDisappear: .lowerPriority(.veryLow))
        }
        await pipeline.graph.waitUntil { $0.waitingDownloads == 1 }
        let visibleView = Task {
            await visible.bind(ImageRequest(source: .controlled("visible")), onDisappear: .lowerPriority(.veryLow))
        }
        await pipeline.graph.waitUntil { $0.waitingDownloads == 2 }

        // When the first queued view disappears
        scrolledAwayView.cancel()
        await scrolledAwayView.value
        let awayKey = pipeline.cacheKey(for: ImageRequest(source: .controlled("away"))).sourceKey
        await pipeline.graph.waitUntil { $0.downloadPriority(for: awayKey) == .veryLow }
        #expect(scrolledAway.phase.isLoading)   // lowered, not cancelled
        loader.releaseAll()

        // Then the visible view's download starts before it, and both finish
        await waitUntil(visible) { $0.response != nil }
        await waitUntil(scrolledAway) { $0.response != nil }
        #expect(loader.startOrder == ["blocker", "visible", "away"])
        visibleView.cancel()
    }

    @Test("Reappearing restores a lowered priority, and a quick disappear-reappear keeps the load")
    func reappearRestoresPriority() async throws {
        let (loader, pipeline) = await pipelineWithItsOnlySlotTaken()
        let request = ImageRequest(source: .controlled("photo"), priority: .high)
        let key = pipeline.cacheKey(for: request).sourceKey
        let model = ImageModel(pipeline: pipeline)

        let firstAppearance = Task { await model.bind(request, onDisappear: .lowerPriority(.veryLow)) }
        await pipeline.graph.waitUntil { $0.downloadPriority(for: key) == .high }
        firstAppearance.cancel()
        await firstAppearance.value
        await pipeline.graph.waitUntil { $0.downloadPriority(for: key) == .veryLow }

        // The view comes back, and disappears with a cancelling behaviour an instant after a
        // newer binding started: only the newest binding acts.
        let stale = Task { await model.bind(request, onDisappear: .cancel) }
        let current = Task { await model.bind(request, onDisappear: .lowerPriority(.veryLow)) }
        await pipeline.graph.waitUntil { $0.downloadPriority(for: key) == .high }
        stale.cancel()
        await stale.value
        #expect(model.isLoading)

        // A priority the app set itself survives another binding of the same image.
        model.priority = .veryHigh
        let another = Task { await model.bind(request, onDisappear: .lowerPriority(.veryLow)) }
        await pipeline.graph.waitUntil { $0.downloadPriority(for: key) == .veryHigh }   // a round trip: `another` has run
        #expect(model.priority == .veryHigh)
        another.cancel()
        await another.value
        loader.releaseAll()
        await waitUntil(model) { $0.response != nil }
        #expect(pipeline.statistics.downloads == 2)   // the blocker and this one: never restarted
        current.cancel()
    }

    @Test("A failure is reported as a typed error, and retry loads again")
    func failureThenRetry() async throws {
        // Given a server that answers 404 once, then the image
        let hits = EventCounter()
        let server = try TestHTTPServer { _ in
            hits.record("hit")
            return hits.count("hit") == 1 ? .status(404) : .ok(Fixtures.logo)
        }
        defer { server.stop() }
        let model = ImageModel(pipeline: Fixtures.pipeline())
        let request = ImageRequest(url: server.url("/logo.png"))

        model.load(request)
        await waitUntil(model) { $0.error != nil }
        guard case let .loadingFailed(.notFound(source)) = model.phase.error else {
            Issue.record("expected a not-found failure, got \(model.phase.label)")
            return
        }
        #expect(source.hasSuffix("/logo.png"))

        model.retry()
        #expect(model.phase.isLoading)
        await waitUntil(model) { $0.response != nil }
        #expect(model.phase.response?.image.width == 500)
        #expect(server.hits("/logo.png") == 2)
    }

    @Test("Changing the request cancels the old load and shows only the new image")
    func changingRequest() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)
        let model = ImageModel(pipeline: pipeline)
        let old = ImageRequest(source: .controlled("old")), new = ImageRequest(source: .controlled("new"))

        model.load(old)
        await loader.events.wait(for: "started:old")
        model.load(new)
        await loader.events.wait(for: "cancelled:old")
        #expect(model.phase(for: old).label == "empty")
        loader.release("new")
        await waitUntil(model) { $0.response != nil }
        #expect(model.request?.source.description == new.source.description)
        #expect(model.phase(for: new).label == "success source")
    }
}

/// A pipeline with one download slot, taken by "blocker" until the loader releases it.
@MainActor
private func pipelineWithItsOnlySlotTaken() async -> (ControlledLoader, ImagePipeline) {
    let loader = ControlledLoader()
    let pipeline = Fixtures.pipeline(loader: loader, downloads: 1)
    _ = pipeline.imageTask(with: ImageRequest(source: .controlled("blocker")))
    await loader.events.wait(for: "started:blocker")
    return (loader, pipeline)
}

extension ImagePhase {
    var progress: DataProgress? {
        if case let .loading(progress, _) = self { progress } else { nil }
    }
}
