import Foundation
@testable import Imagery
import ImageryTestSupport
import ImageryUI
import Observation
import Testing

@MainActor
@Suite(.timeLimit(.minutes(10)))
struct FetchedImageTests {
    @Test("update() changes no observed state, is idempotent, and starts one load for one image")
    func updateIsIdempotent() async throws {
        let loader = ControlledLoader()
        loader.releaseAll()
        let pipeline = Fixtures.pipeline(loader: loader)
        var photo = FetchedImage(ImageRequest(source: .controlled("avatar"), resize: .fill(width: 48, height: 48)), pipeline: pipeline)

        // SwiftUI calls update() before each body; a view re-renders many times
        let changes = EventCounter()
        withObservationTracking { _ = photo.wrappedValue } onChange: { changes.record("phase") }
        for _ in 0..<5 { photo.update() }
        #expect(changes.count("phase") == 0, "update() mutated observed state synchronously")
        #expect(photo.wrappedValue.label == "empty")

        // The load starts on the next main-actor turn, once
        await waitUntil(photo.projectedValue) { $0.response != nil }
        #expect(changes.count("phase") == 1)
        #expect(photo.wrappedValue.label == "success source")
        for _ in 0..<5 { photo.update() }
        await pipeline.waitUntilIdle()
        #expect(pipeline.statistics.requests == 1)
        #expect(loader.startOrder == ["avatar"])
    }

    @Test("A new identity loads once; one superseded before its turn never loads")
    func identityChanges() async throws {
        let loader = ControlledLoader()
        loader.releaseAll()
        let pipeline = Fixtures.pipeline(loader: loader)
        let model = ImageModel(pipeline: pipeline)
        let first = ImageRequest(source: .controlled("first")), second = ImageRequest(source: .controlled("second"))

        model.scheduleLoad(first)
        model.scheduleLoad(first)
        await waitUntil(model) { $0.response != nil }
        // A priority change alone is the same image
        model.scheduleLoad(ImageRequest(source: .controlled("first"), priority: .high))
        // Two new requests in one update pass: only the last one loads
        model.scheduleLoad(ImageRequest(source: .controlled("skipped")))
        model.scheduleLoad(second)
        await waitUntil(model) { $0.response != nil && model.request?.source.description == second.source.description }
        await pipeline.waitUntilIdle()
        #expect(loader.startOrder == ["first", "second"])
        #expect(pipeline.statistics.requests == 2)
    }

    @Test("The wrapper's projected model retries a failure")
    func wrapperRetry() async throws {
        let hits = EventCounter()
        let server = try TestHTTPServer { _ in
            hits.record("hit")
            return hits.count("hit") == 1 ? .status(500) : .ok(Fixtures.gif)
        }
        defer { server.stop() }
        var photo = FetchedImage(url: server.url("/objects.gif"), pipeline: Fixtures.pipeline())
        photo.update()
        await waitUntil(photo.projectedValue) { $0.error != nil }
        #expect(photo.wrappedValue.error?.kind == "http_5xx")
        photo.projectedValue.retry()
        await waitUntil(photo.projectedValue) { $0.response != nil }
        #expect(photo.wrappedValue.response?.image.width == 256)
    }
}
