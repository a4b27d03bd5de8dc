import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
@testable import ImageryUI
import Testing
#if canImport(SwiftUI)
import SwiftUI
#else
import SwiftUIStub
#endif

/// The complaint this layer exists to fix: a cached image must not flash a placeholder.
@MainActor
@Suite(.timeLimit(.minutes(3)))
struct FirstFrameTests {
    @Test("A cached request is a success in the first frame, and no frame is empty or loading")
    func cachedImageInFirstFrame() async throws {
        // Given an image already in the memory cache
        let loader = ControlledLoader()
        loader.releaseAll()
        let pipeline = Fixtures.pipeline(loader: loader)
        let request = ImageRequest(source: .controlled("cached"), resize: .fill(width: 64, height: 64))
        _ = try await pipeline.image(for: request)

        // When a fresh view model renders it, then its view task binds the request
        let model = ImageModel(pipeline: pipeline)
        let recorder = FrameRecorder { model.phase(for: request) }
        let view = Task { await model.bind(request) }
        await waitUntil(model) { $0.response != nil }
        await waitUntil(model) { _ in recorder.frames.count >= 2 }

        // Then every frame, the first included, shows the image, and nothing was loaded again
        #expect(recorder.labels.allSatisfy { $0 == "success memory" }, "\(recorder.labels)")
        #expect(!model.isLoading)
        #expect(pipeline.statistics.downloads == 1)
        view.cancel()
    }

    /// One pipeline for every run of the test that sets `.shared`, so a rerun finds its cache.
    static let linuxShared = ImagePipeline(configuration: .standard)

    @Test("AsyncPhoto's first body hands its content the cached image")
    func asyncPhotoFirstBody() async throws {
        // Given an image in the shared pipeline's memory cache (the environment's default; on
        // Linux the core has no decoder, so the app sets it, as the docs say)
        // This is the only test that sets the process-wide pipeline; it puts the old one back.
        #if !canImport(ImageIO)
        let previous = ImagePipeline.shared
        ImagePipeline.shared = Self.linuxShared
        defer { ImagePipeline.shared = previous }
        #endif
        let url = Fixtures.directory.appendingPathComponent("jpeg_small_base_rocket_640x427.jpg")
        let request = ImageRequest(url: url, resize: .fit(width: 80, height: 80))
        _ = try await ImagePipeline.shared.image(for: request)

        // When the view's body is evaluated for the first time
        var seen: [String] = []
        let view = AsyncPhoto(request: request) { phase in
            let _ = seen.append(phase.image != nil ? "image" : phase.error.map { "failure \($0)" } ?? "placeholder")
            Color.clear
        }
        _ = view.body

        // Then its content saw the image, not a placeholder
        #expect(seen == ["image"])
    }

    @Test("A resized view keeps showing the image of the same source until the new size arrives")
    func resizeKeepsImage() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)
        loader.release("photo")
        let model = ImageModel(pipeline: pipeline)
        let small = ImageRequest(source: .controlled("photo")).sized(toWidth: 40, height: 40, scale: 2)!
        let large = ImageRequest(source: .controlled("photo")).sized(toWidth: 80, height: 80, scale: 2)!
        model.load(small)
        await waitUntil(model) { $0.response != nil }

        // The view is laid out larger: until its new load is done it shows the small image,
        // never a placeholder; another source is not mistaken for it.
        #expect(model.phase(for: large).response?.image.width == 80)
        #expect(model.phase(for: ImageRequest(source: .controlled("other"))).label == "empty")
        model.load(large)
        await waitUntil(model) { $0.response?.image.width == 160 }
    }
}
