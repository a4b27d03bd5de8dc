import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Synchronization
import Testing

/// The pipeline with animation asked for: every frame resized and processed, returned and
/// cached whole, or streamed; without it, the first frame as a still.
// The limit is a hang's bound, not a timing: in a full run on two cores every decode here waits
// behind the other suites' heavy work on the shared heavy-work threads.
@Suite(.timeLimit(.minutes(10)))
struct AnimationPipelineTests {
    static let gif = Fixtures.bytes("gif_anim_rocket_8f_160x107.gif")

    static func request(id: String, animated: Bool, processors: [any ImageProcessing] = []) -> ImageRequest {
        var request = ImageRequest(source: .custom(id: id) { gif }, resize: .fit(width: 80, height: 80))
        request.processors = processors
        if animated { request.animation = AnimationLimits() }
        return request
    }

    @Test("An animated request gets every frame, resized and processed, and the memory cache returns it whole")
    func animatedResponseIsCached() async throws {
        let pipeline = Fixtures.pipeline()
        let request = Self.request(id: "anim-cached", animated: true, processors: [.circle])
        let response = try await pipeline.response(for: request)
        let animation = try #require(response.animation)
        #expect(animation.frames.count == 8)
        #expect(response.image == animation.poster)
        for frame in animation.frames {
            #expect(frame.image.width == 54 && frame.image.height == 54, "80x54, then the circle's centre square")
            #expect(frame.image.pixel(x: 0, y: 0).alpha == 0, "the circle cuts every frame")
        }
        let cached = try #require(pipeline.cachedImage(for: request))
        #expect(cached.animation == animation)
        let again = try await pipeline.response(for: request)
        #expect(again.origin == .memory && again.animation?.frames.count == 8)
        #expect(pipeline.statistics.decodes == 1)
    }

    @Test("Without animation asked for, the same source is a still, cached apart from the animation")
    func stillAndAnimatedAreDifferentEntries() async throws {
        let pipeline = Fixtures.pipeline()
        let still = try await pipeline.response(for: Self.request(id: "anim-both", animated: false))
        #expect(still.animation == nil)
        let animated = try await pipeline.response(for: Self.request(id: "anim-both", animated: true))
        #expect(animated.animation?.frames.count == 8)
        #expect(pipeline.cache?.count == 2)
    }

    @Test("A streamed animation is decoded and processed when it is read, and the memory cache keeps the stream, not its frames")
    func streamedResponseProcessesFramesWhenRead() async throws {
        let processed = Mutex(0)
        let counting = ImageProcessors.Closure(id: "count") { image in
            processed.withLock { $0 += 1 }
            return image
        }
        let pipeline = Fixtures.pipeline()
        var request = Self.request(id: "anim-stream", animated: true, processors: [counting, .circle])
        request.animation?.delivery = .stream
        let response = try await pipeline.response(for: request)
        #expect(response.animation == nil && response.isAnimated)
        let stream = try #require(response.animationStream)
        #expect(processed.withLock { $0 } == 1, "only the poster is processed before the stream is read")
        #expect(stream.frameCount == 8 && response.image == stream.poster)
        var frames = stream.frames()
        var read: [AnimationFrame] = []
        while let frame = try await frames.next() { read.append(frame) }
        #expect(processed.withLock { $0 } == 9)
        // The same frames as the collected delivery, processed alike.
        let whole = try #require(try await pipeline.response(for: Self.request(id: "anim-stream", animated: true, processors: [counting, .circle])).animation)
        #expect(read == whole.frames)
        let again = try await pipeline.response(for: request)
        #expect(again.origin == .memory && again.animationStream != nil)
        #expect(pipeline.statistics.decodes == 2, "the stream and the frames are cached apart")
    }

    @Test("Cancelling the task that reads a stream ends the read with .cancelled")
    func streamReadEndsOnCancellation() async throws {
        let pipeline = Fixtures.pipeline()
        var request = Self.request(id: "anim-cancel", animated: true)
        request.animation?.delivery = .stream
        let stream = try #require(try await pipeline.response(for: request).animationStream)
        let reading = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            var frames = stream.frames()
            return try await frames.next()
        }
        await #expect(throws: ImagePipelineError.cancelled) { try await reading.value }
    }

    @Test("The decoding budget charges the whole animation (canvas and every resized frame), and a stream its poster")
    func decodingCostChargesEveryFrame() {
        var options = ImageRequest.DecodeOptions()
        options.resize = .fit(width: 80, height: 80)
        options.animation = AnimationLimits()
        let key = DecodeKey(fetch: FetchKey(source: "x", readsDisk: false), decodeOptions: options, maximumPixelCount: 100_000_000)
        #expect(key.decodingCost(of: Self.gif) == 160 * 107 + 8 * 80 * 54)
        var streamed = key
        streamed.decodeOptions.animation?.delivery = .stream
        #expect(streamed.decodingCost(of: Self.gif) == 160 * 107 + 80 * 54, "a stream's decode makes its poster only")
        // A still is the canvas, one resized frame and the resample's rows between them
        // (PixelBudgetTests), less than the animation's eight frames.
        var still = key
        still.decodeOptions.animation = nil
        let rows = LanczosResampler.scratchPixels(source: PixelSize(width: 160, height: 107), output: PixelSize(width: 80, height: 54))
        #expect(still.decodingCost(of: Self.gif) == 160 * 107 + 80 * 54 + rows)
        #expect(still.decodingCost(of: Self.gif) < key.decodingCost(of: Self.gif))
    }
}
