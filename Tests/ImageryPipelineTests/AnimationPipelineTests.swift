import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// The pipeline with animation asked for: every frame resized and processed, returned and
/// cached whole; without it, the first frame as a still.
@Suite(.timeLimit(.minutes(2)))
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
        let response = try await pipeline.image(for: request)
        let animation = try #require(response.animation)
        #expect(animation.frames.count == 8)
        #expect(response.image == animation.poster)
        for frame in animation.frames {
            #expect(frame.image.width == 54 && frame.image.height == 54, "80x54, then the circle's centre square")
            #expect(frame.image.pixel(x: 0, y: 0).alpha == 0, "the circle cuts every frame")
        }
        let cached = try #require(pipeline.cachedImage(for: request))
        #expect(cached.animation == animation)
        let again = try await pipeline.image(for: request)
        #expect(again.origin == .memory && again.animation?.frames.count == 8)
        #expect(pipeline.statistics.decodes == 1)
    }

    @Test("Without animation asked for, the same source is a still, cached apart from the animation")
    func stillAndAnimatedAreDifferentEntries() async throws {
        let pipeline = Fixtures.pipeline()
        let still = try await pipeline.image(for: Self.request(id: "anim-both", animated: false))
        #expect(still.animation == nil)
        let animated = try await pipeline.image(for: Self.request(id: "anim-both", animated: true))
        #expect(animated.animation?.frames.count == 8)
        #expect(pipeline.cache?.count == 2)
    }

    @Test("The decoding budget charges the whole animation: canvas and every resized frame")
    func decodingCostChargesEveryFrame() {
        let key = DecodeKey(
            fetch: FetchKey(source: "x", readsDisk: false), resize: .fit(width: 80, height: 80), allowsUpscaling: false,
            policy: .strict, maximumPixelCount: 100_000_000, animation: AnimationLimits()
        )
        #expect(key.decodingCost(of: Self.gif) == 160 * 107 + 8 * 80 * 54)
        var still = key
        still.animation = nil
        #expect(still.decodingCost(of: Self.gif) < 160 * 107 + 2 * 80 * 54)
    }
}
