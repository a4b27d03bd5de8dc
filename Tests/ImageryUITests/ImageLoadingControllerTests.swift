import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
@testable import ImageryUI
import Testing

/// The controller behind a reused image view (UIKit's cells), driven on Linux through a
/// recording display.
@MainActor
@Suite(.timeLimit(.minutes(10)))
struct ImageLoadingControllerTests {
    let loader = ControlledLoader()
    let display = RecordingDisplay()

    func controller(_ pipeline: ImagePipeline, clock: ManualClock = ManualClock()) -> ImageLoadingController {
        ImageLoadingController(display: display, model: ImageModel(pipeline: pipeline, playbackClock: clock))
    }

    @Test("A memory-cache hit is shown within load, with no placeholder before it and no fade")
    func memoryHitInSameFrame() async throws {
        let pipeline = Fixtures.pipeline(loader: loader)
        loader.releaseAll()
        let request = ImageRequest(source: .controlled("cached"), resize: .fill(width: 32, height: 32))
        _ = try await pipeline.response(for: request)

        let controller = controller(pipeline)
        controller.load(request)

        // Before any suspension: the image, and nothing else was ever shown
        #expect(display.entries == ["image 32x32"])
    }

    @Test("A load shows the placeholder at once, then fades the image in")
    func placeholderThenFade() async throws {
        let pipeline = Fixtures.pipeline(loader: loader)
        let controller = controller(pipeline)
        controller.load(ImageRequest(source: .controlled("photo"), resize: .fill(width: 40, height: 30)))
        #expect(display.entries == ["placeholder"])

        loader.release("photo")
        await waitUntil(controller.model) { _ in display.entries.count >= 2 }
        #expect(display.entries == ["placeholder", "image 40x30 fade"])
    }

    @Test("A request's placeholder hash is the placeholder, decoded")
    func placeholderHash() async throws {
        let pipeline = Fixtures.pipeline(loader: loader)
        let controller = controller(pipeline)
        var request = ImageRequest(source: .controlled("hashed"), resize: .fill(width: 40, height: 30))
        request.placeholder = PlaceholderHash(thumbHashBase64: "1QcSHQRnh493V4dIh4eXh1h4kJUI")
        controller.load(request)
        #expect(display.entries == ["placeholder preview"])
        controller.prepareForReuse()
    }

    @Test("A failure shows the failure state, once")
    func failure() async throws {
        let pipeline = Fixtures.pipeline()
        let controller = controller(pipeline)
        controller.load(ImageRequest(source: .custom(id: "broken") { [0xFF, 0xD8, 0x00] }))
        await waitUntil(controller.model) { $0.error != nil }
        await waitUntil(controller.model) { _ in display.entries.count >= 2 }
        #expect(display.entries == ["placeholder", "failure decoding"])
    }

    @Test("Progress reports do not redraw the placeholder")
    func progressDoesNotRedraw() async throws {
        // Given a download that reports half its bytes, then waits
        let gate = AsyncGate()
        defer { gate.open() }
        let pipeline = Fixtures.pipeline(loader: HalfwayLoader(gate: gate))
        let controller = controller(pipeline)
        controller.load(ImageRequest(source: .custom(id: "halfway") { [] }, resize: .fill(width: 20, height: 20)))
        await waitUntil(controller.model) { _ in controller.model.progress != nil }

        // When the rest arrives
        gate.open()
        await waitUntil(controller.model) { $0.response != nil }
        await waitUntil(controller.model) { _ in display.entries.count >= 2 }

        // Then the placeholder was drawn once, whatever the progress did
        #expect(display.entries == ["placeholder", "image 20x20 fade"])
    }

    @Test("Reuse cancels the old load, and its late result never lands in the reused view")
    func reuseCancelsAndLateResultNeverLands() async throws {
        // Given a source that ignores cancellation (a server that answers anyway) and a cell
        // loading it
        let gate = AsyncGate()
        defer { gate.open() }
        let pipeline = Fixtures.pipeline(loader: loader)
        let controller = controller(pipeline)
        let stubborn = ImageRequest(source: .custom(id: "stubborn") { await gate.wait(); return Fixtures.rocket }, resize: .fill(width: 30, height: 30))
        let slowPipeline = Fixtures.pipeline()
        controller.model.pipeline = slowPipeline
        controller.load(stubborn)

        // When the cell is reused for another row before it arrives
        controller.prepareForReuse()
        controller.model.pipeline = pipeline
        controller.load(ImageRequest(source: .controlled("next"), resize: .fill(width: 40, height: 40)))
        loader.release("next")
        await waitUntil(controller.model) { $0.response != nil }
        await waitUntil(controller.model) { _ in display.entries.count >= 4 }

        // …and the old source answers late
        gate.open()
        await slowPipeline.waitUntilIdle()
        await pipeline.waitUntilIdle()

        // Then the view showed the placeholder, emptied on reuse, and only the new row's image
        #expect(display.entries == ["placeholder", "empty", "placeholder", "image 40x40 fade"])
        #expect(display.lastImage?.width == 40)
        #expect(slowPipeline.statistics.decodes == 0)
    }

    @Test("Loading another request straight away cancels the first: its download stops")
    func newRequestCancelsOld() async throws {
        let pipeline = Fixtures.pipeline(loader: loader)
        let controller = controller(pipeline)
        controller.load(ImageRequest(source: .controlled("first"), resize: .fill(width: 30, height: 30)))
        #expect(await loader.events.wait(for: "started:first"))
        controller.load(ImageRequest(source: .controlled("second"), resize: .fill(width: 40, height: 40)))
        #expect(await loader.events.wait(for: "cancelled:first"))
        loader.release("second")
        await waitUntil(controller.model) { $0.response != nil }
        await waitUntil(controller.model) { _ in display.entries.count >= 3 }
        #expect(display.entries == ["placeholder", "placeholder", "image 40x40 fade"])
    }

    @Test("An animated image plays in the view, a frame at a time")
    func animationPlays() async throws {
        let clock = ManualClock()
        let bytes = try AnimationPlaybackTests.gif(durations: Array(repeating: .milliseconds(50), count: 3), loopCount: 0)
        let controller = controller(Fixtures.pipeline(), clock: clock)
        var request = ImageRequest(source: .custom(id: "animated-\(UUID())") { bytes })
        request.animation = AnimationLimits(delivery: .stream)
        controller.load(request)
        await waitUntil(controller.model) { $0.response != nil }
        await clock.untilSleeping()
        clock.advance(by: .milliseconds(50))
        await waitUntil(controller.model) { _ in AnimationPlaybackTests.index(of: display.lastImage) == 1 }
        #expect(display.entries.first == "placeholder")
        #expect(display.entries.filter { $0.hasPrefix("image") }.count >= 2)
        controller.prepareForReuse()
        #expect(!controller.model.isAnimating)
    }
}

/// Holds a load until the test opens it, whatever cancellation says (a server that answers
/// anyway); each test opens it in a `defer`, so no load waits past its test.
final class AsyncGate: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let proceed = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if proceed { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Reports half the bytes, then waits for its gate before returning the whole image.
struct HalfwayLoader: DataLoading {
    let gate: AsyncGate

    func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        let gate = self.gate
        return try await DataResponse.streaming { sink throws(DataLoadingError) in
            let half = Fixtures.rocket.count / 2
            sink.begin(expectedLength: Int64(Fixtures.rocket.count))
            try await sink.send(Array(Fixtures.rocket[..<half]))
            await gate.wait()
            try await sink.send(Array(Fixtures.rocket[half...]))
        }
    }
}

/// Progressive previews through the controller: each new scan is drawn as the placeholder.
@MainActor
@Suite(.timeLimit(.minutes(10)))
struct ImageLoadingControllerPreviewTests {
    @Test("Each progressive preview is drawn as it comes, then the image fades in over the last")
    func previewsAreDrawn() async throws {
        let display = RecordingDisplay()
        let loader = SplitLoader(bytes: Fixtures.meadow, split: Fixtures.meadow.count * 4 / 10)
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.dataLoader = loader
            $0.isProgressiveDecodingEnabled = true
            $0.progressiveDecodingInterval = .zero
        })
        let controller = ImageLoadingController(display: display, model: ImageModel(pipeline: pipeline))
        controller.load(ImageRequest(source: .custom(id: "meadow") { [] }, resize: .fill(width: 120, height: 96)))
        await waitUntil(controller.model) { _ in display.entries.contains("placeholder preview") }
        #expect(display.lastImage == nil)
        loader.open()
        await waitUntil(controller.model) { _ in display.entries.last == "image 120x96 fade" }
        #expect(display.entries.first == "placeholder")
        #expect(display.entries.last == "image 120x96 fade")

        // The same request again (a reloadData) keeps the picture: nothing is drawn or loaded again
        let drawn = display.entries.count
        controller.load(ImageRequest(source: .custom(id: "meadow") { [] }, resize: .fill(width: 120, height: 96)))
        #expect(display.entries.count == drawn)
        #expect(loader.loads == 1)
    }
}
