import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
@testable import ImageryUI
import Observation
import Testing

/// Playing an animated image in the model, on a clock the tests move by hand: no real time,
/// no sleeps.
@MainActor
@Suite(.timeLimit(.minutes(10)))
struct AnimationPlaybackTests {
    /// Frame colours: each frame is a solid colour, so the frame on show names its index.
    static let colours: [RGBA] = [
        RGBA(red: 255, green: 0, blue: 0), RGBA(red: 0, green: 255, blue: 0),
        RGBA(red: 0, green: 0, blue: 255), RGBA(red: 255, green: 255, blue: 0),
        RGBA(red: 0, green: 255, blue: 255), RGBA(red: 255, green: 0, blue: 255),
    ]

    /// A GIF of `durations.count` solid frames, played `loopCount` times (0: for ever).
    static func gif(durations: [Duration], loopCount: Int) throws -> [UInt8] {
        let frames = durations.enumerated().map { index, duration in
            AnimationFrame(image: Bitmap(width: 24, height: 16, filledWith: colours[index % colours.count]), duration: duration)
        }
        return try ImageEncoder(format: .gif).encode(AnimatedImage(frames: frames, loopCount: loopCount))
    }

    static func index(of bitmap: Bitmap?) -> Int? {
        guard let bitmap else { return nil }
        let pixel = bitmap.pixel(x: bitmap.width / 2, y: bitmap.height / 2)
        return colours.firstIndex { abs(Int($0.red) - Int(pixel.red)) < 8 && abs(Int($0.green) - Int(pixel.green)) < 8 && abs(Int($0.blue) - Int(pixel.blue)) < 8 }
    }

    let clock = ManualClock()

    func model(serving bytes: [UInt8]) -> (ImageModel, ImageRequest) {
        let pipeline = Fixtures.pipeline()
        var request = ImageRequest(source: .custom(id: "animation-\(UUID())") { bytes })
        request.animation = AnimationLimits(delivery: .stream)
        return (ImageModel(pipeline: pipeline, playbackClock: clock), request)
    }

    /// The index of the frame on show once the player waits for the clock again.
    func settledFrame(_ model: ImageModel) async -> Int? {
        await clock.untilSleeping()
        return Self.index(of: model.currentFrame ?? model.phase.response?.image)
    }

    /// Moves the clock by `duration` and returns the frame on show once the player waits again.
    func advance(_ model: ImageModel, by duration: Duration) async -> Int? {
        clock.advance(by: duration)
        return await settledFrame(model)
    }

    @Test("Frames play in order, each for its own duration, for ever when the loop count is 0")
    func orderAndDurations() async throws {
        // Given an animation of three frames of 100, 250 and 40 ms that loops for ever
        let (model, request) = model(serving: try Self.gif(durations: [.milliseconds(100), .milliseconds(250), .milliseconds(40)], loopCount: 0))

        // When it loads
        model.load(request)
        await waitUntil(model) { $0.response != nil }
        #expect(model.phase.response?.animationStream != nil)
        #expect(await settledFrame(model) == 0)

        // Then a frame stays until its duration has passed, and not a moment longer
        #expect(await advance(model, by: .milliseconds(99)) == 0)
        #expect(await advance(model, by: .milliseconds(1)) == 1)
        #expect(await advance(model, by: .milliseconds(249)) == 1)
        #expect(await advance(model, by: .milliseconds(1)) == 2)
        #expect(await advance(model, by: .milliseconds(40)) == 0)   // round again
        #expect(await advance(model, by: .milliseconds(100)) == 1)
        #expect(model.isAnimating)
    }

    @Test("A loop count of 2 plays twice and stops on the last frame")
    func loopCount() async throws {
        let (model, request) = model(serving: try Self.gif(durations: Array(repeating: .milliseconds(50), count: 3), loopCount: 2))
        model.load(request)
        await waitUntil(model) { $0.response != nil }
        #expect(await settledFrame(model) == 0)

        var shown: [Int?] = [0]
        for _ in 0..<5 { shown.append(await advance(model, by: .milliseconds(50))) }
        #expect(shown == [0, 1, 2, 0, 1, 2])

        // The last frame's time runs out: the player stops there, and sleeps no more
        clock.advance(by: .milliseconds(50))
        await waitUntilStopped(model)
        #expect(Self.index(of: model.currentFrame) == 2)
        #expect(clock.sleeperCount == 0)
    }

    @Test("Frames stored as 10 ms or less are shown for 100 ms, as browsers do")
    func shortFrames() async throws {
        let (model, request) = model(serving: try Self.gif(durations: [.zero, .milliseconds(10), .milliseconds(20)], loopCount: 0))
        model.load(request)
        await waitUntil(model) { $0.response != nil }
        #expect(await settledFrame(model) == 0)
        #expect(await advance(model, by: .milliseconds(99)) == 0)
        #expect(await advance(model, by: .milliseconds(1)) == 1)
        #expect(await advance(model, by: .milliseconds(100)) == 2)
        #expect(await advance(model, by: .milliseconds(20)) == 0)
    }

    @Test("Playback pauses off screen and goes on from the same frame when the view comes back")
    func pausesOffScreen() async throws {
        let (model, request) = model(serving: try Self.gif(durations: Array(repeating: .milliseconds(100), count: 4), loopCount: 0))
        model.load(request)
        await waitUntil(model) { $0.response != nil }
        #expect(await settledFrame(model) == 0)
        #expect(await advance(model, by: .milliseconds(100)) == 1)

        // When the view leaves the screen, time passes and nothing changes
        model.isVisible = false
        await waitUntilStopped(model)
        clock.advance(by: .seconds(5))
        #expect(Self.index(of: model.currentFrame) == 1)
        #expect(!model.isAnimating)

        // When it comes back, frame 1 gets its whole duration again, then frame 2
        model.isVisible = true
        #expect(await settledFrame(model) == 1)
        #expect(await advance(model, by: .milliseconds(99)) == 1)
        #expect(await advance(model, by: .milliseconds(1)) == 2)

        // The app's own pause does the same
        model.playsAnimations = false
        await waitUntilStopped(model)
        clock.advance(by: .seconds(1))
        #expect(Self.index(of: model.currentFrame) == 2)
    }

    @Test("A bound view plays while its task runs and pauses when the task ends (the view disappeared)")
    func bindPauses() async throws {
        let (model, request) = model(serving: try Self.gif(durations: Array(repeating: .milliseconds(100), count: 3), loopCount: 0))
        let view = Task { await model.bind(request, onDisappear: .lowerPriority(.low)) }
        await waitUntil(model) { $0.response != nil }
        #expect(await settledFrame(model) == 0)
        #expect(model.isAnimating)
        view.cancel()
        await view.value
        #expect(!model.isVisible)
        #expect(!model.isAnimating)
    }

    @Test("With Reduce Motion the first frame stays and the clock is never asked")
    func reduceMotion() async throws {
        let (model, request) = model(serving: try Self.gif(durations: Array(repeating: .milliseconds(100), count: 3), loopCount: 0))
        model.reducesMotion = true
        model.load(request)
        await waitUntil(model) { $0.response != nil }
        #expect(model.currentFrame == nil)
        #expect(Self.index(of: model.phase.response?.image) == 0)
        #expect(!model.isAnimating)
        #expect(clock.sleeperCount == 0)

        // Turned off, it plays; turned on again, the first frame is back
        model.reducesMotion = false
        #expect(await settledFrame(model) == 0)
        #expect(await advance(model, by: .milliseconds(100)) == 1)
        model.reducesMotion = true
        #expect(model.currentFrame == nil)
        #expect(!model.isAnimating)
    }

    @Test("An animation longer than the frame budget is decoded as it plays, never more than the budget ahead, and loops")
    func frameBudget() async throws {
        // Given 6 frames and a budget of 3 (the one on show and two ahead)
        let (model, request) = model(serving: try Self.gif(durations: Array(repeating: .milliseconds(30), count: 6), loopCount: 0))
        model.frameBudget = 3
        model.load(request)
        await waitUntil(model) { $0.response != nil }
        #expect(await settledFrame(model) == 0)

        var shown: [Int?] = [0]
        for _ in 0..<13 { shown.append(await advance(model, by: .milliseconds(30))) }
        #expect(shown == [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1])
        // Round twice, and still at most two frames decoded ahead: nothing was kept whole
        let supply = try #require(model.player?.supply)
        #expect(supply.framesHeld <= 2)
        #expect(!supply.holdsEveryFrame)
    }

    @Test("An animation within the frame budget is decoded once, then played from memory")
    func fitsBudget() async throws {
        let (model, request) = model(serving: try Self.gif(durations: Array(repeating: .milliseconds(30), count: 3), loopCount: 0))
        model.load(request)
        await waitUntil(model) { $0.response != nil }
        #expect(await settledFrame(model) == 0)
        var shown: [Int?] = [0]
        for _ in 0..<4 { shown.append(await advance(model, by: .milliseconds(30))) }
        #expect(shown == [0, 1, 2, 0, 1])
        let supply = try #require(model.player?.supply)
        #expect(supply.holdsEveryFrame)
        #expect(supply.framesHeld == 3)
    }

    @Test("A cached animation plays from the first frame when a new model shows it, and stops when the model loads another image")
    func replacedStops() async throws {
        // Given a model of a pipeline playing a three-frame animation, on its second frame
        let bytes = try Self.gif(durations: Array(repeating: .milliseconds(100), count: 3), loopCount: 0)
        let reads = Locked(0)
        let pipeline = Fixtures.pipeline()
        var request = ImageRequest(source: .custom(id: "animation-\(UUID())") {
            reads.withLock { $0 += 1 }
            return bytes
        })
        request.animation = AnimationLimits(delivery: .stream)
        let model = ImageModel(pipeline: pipeline, playbackClock: clock)
        model.load(request)
        await waitUntil(model) { $0.response != nil }
        #expect(await settledFrame(model) == 0)
        #expect(await advance(model, by: .milliseconds(100)) == 1)

        // When a second model of the same pipeline shows the same request
        let second = ImageModel(pipeline: pipeline, playbackClock: clock)
        second.load(request)

        // Then it is the memory cache's animation, shown in the same call, not read again
        #expect(second.phase.response?.animationStream != nil)
        #expect(reads.withLock { $0 } == 1)
        // Required before waiting for its player to sleep: a model that never plays would
        // leave that wait to the suite's time limit.
        try #require(second.isAnimating, "the cached animation does not play in the new model")
        // And it starts at the first frame, while the first model stays on its second
        await clock.untilSleeping(count: 2)
        #expect(Self.index(of: second.currentFrame) == 0)
        #expect(Self.index(of: model.currentFrame) == 1)
        // And each plays on from its own frame
        clock.advance(by: .milliseconds(100))
        await clock.untilSleeping(count: 2)
        #expect(Self.index(of: second.currentFrame) == 1)
        #expect(Self.index(of: model.currentFrame) == 2)
        #expect(second.isAnimating && model.isAnimating)

        // A still replaces the first model's: no frame is left, and its playback stopped
        model.load(ImageRequest(source: .custom(id: "still-\(UUID())") { Fixtures.rocket }))
        #expect(model.currentFrame == nil)
        #expect(model.player == nil)
        // The second model's plays on
        #expect(await advance(second, by: .milliseconds(100)) == 2)
        #expect(second.isAnimating)
    }

    @Test("Without animation asked for, an animated source is a still: nothing plays")
    func stillByDefault() async throws {
        let bytes = try Self.gif(durations: Array(repeating: .milliseconds(100), count: 3), loopCount: 0)
        let model = ImageModel(pipeline: Fixtures.pipeline(), playbackClock: clock)
        model.load(ImageRequest(source: .custom(id: "still-gif") { bytes }))
        await waitUntil(model) { $0.response != nil }
        #expect(model.player == nil)
        #expect(!model.isAnimating)
        #expect(clock.sleeperCount == 0)
    }

    @Test("An animation decoded whole (.frames) plays from memory")
    func framesDelivery() async throws {
        let bytes = try Self.gif(durations: Array(repeating: .milliseconds(100), count: 3), loopCount: 1)
        let model = ImageModel(pipeline: Fixtures.pipeline(), playbackClock: clock)
        var request = ImageRequest(source: .custom(id: "frames-gif") { bytes })
        request.animation = AnimationLimits()
        model.load(request)
        await waitUntil(model) { $0.response != nil }
        #expect(model.phase.response?.animation?.frames.count == 3)
        #expect(await settledFrame(model) == 0)
        #expect(await advance(model, by: .milliseconds(100)) == 1)
        #expect(await advance(model, by: .milliseconds(100)) == 2)
        clock.advance(by: .milliseconds(100))
        await waitUntilStopped(model)
        #expect(Self.index(of: model.currentFrame) == 2)
    }

    /// Returns once the model's player has stopped taking frames: paused, or finished.
    func waitUntilStopped(_ model: ImageModel) async {
        await model.player?.untilStopped()
    }
}
