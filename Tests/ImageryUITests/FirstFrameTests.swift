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
@Suite(.timeLimit(.minutes(10)))
struct FirstFrameTests {
    @Test("A cached request is a success in the first frame, and no frame is empty or loading")
    func cachedImageInFirstFrame() async throws {
        // Given an image already in the memory cache
        let loader = ControlledLoader()
        loader.releaseAll()
        let pipeline = Fixtures.pipeline(loader: loader)
        let request = ImageRequest(source: .controlled("cached"), resize: .fill(width: 64, height: 64))
        _ = try await pipeline.response(for: request)

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

    @Test("AsyncPhoto's first body hands its content the cached image")
    func asyncPhotoFirstBody() async throws {
        // Given an image in the shared pipeline's memory cache (the environment's default, which
        // decodes with no setup: ImageIO on Apple platforms, ImageryCodecs on Linux)
        let url = Fixtures.directory.appendingPathComponent("jpeg_small_base_rocket_640x427.jpg")
        let request = ImageRequest(url: url, resize: .fit(width: 80, height: 80))
        _ = try await ImagePipeline.shared.response(for: request)

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

    @Test("A resized view keeps showing the image of the same source, with progress beside it, until the new size arrives")
    func resizeKeepsImage() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)
        loader.release("photo")
        let model = ImageModel(pipeline: pipeline)
        let small = ImageRequest(source: .controlled("photo")).sized(toWidth: 40, height: 40, scale: 2)!
        let large = ImageRequest(source: .controlled("photo")).sized(toWidth: 80, height: 80, scale: 2)!
        model.load(small)
        await waitUntil(model) { $0.response != nil }

        // Before the new load starts: the small image, never a placeholder; another source is
        // not mistaken for it.
        #expect(model.phase(for: large).response?.image.width == 80)
        #expect(model.phase(for: ImageRequest(source: .controlled("other"))).label == "empty")

        // While the larger size loads (its download held), still the small image
        loader.hold("photo")
        model.load(large)
        #expect(await loader.events.wait(for: "started:photo", count: 2))
        #expect(model.isLoading)
        #expect(model.phase(for: large).response?.image.width == 80)
        #expect(model.phase.response?.image.width == 80)
        #expect(model.progress == nil)   // no bytes yet

        // Until the new size lands
        loader.release("photo")
        await waitUntil(model) { $0.response?.image.width == 160 }
        #expect(model.phase(for: large).response?.image.width == 160 && model.progress == nil)
    }

    @Test("Another source never keeps the old image while it loads")
    func otherSourceShowsLoading() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)
        loader.release("photo")
        let model = ImageModel(pipeline: pipeline)
        model.load(ImageRequest(source: .controlled("photo")))
        await waitUntil(model) { $0.response != nil }
        model.load(ImageRequest(source: .controlled("other")))
        #expect(model.phase.isLoading && model.phase(for: ImageRequest(source: .controlled("other"))).isLoading)
        model.cancel()
    }

    @Test("A request's placeholder hash shows, decoded, in the first frame, before any network, until the image lands")
    func placeholderFirst() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)
        let model = ImageModel(pipeline: pipeline)
        var request = ImageRequest(source: .controlled("hashed"), resize: .fit(width: 64, height: 64))
        let hash = try ThumbHash(image: Bitmap(width: 30, height: 20, filledWith: RGBA(red: 200, green: 90, blue: 40)))
        request.placeholder = .thumbHash(hash)

        // Before the load starts, and synchronously once it has: the hash's picture
        #expect(model.phase(for: request).preview?.width == 32)
        model.load(request)
        #expect(model.phase.preview?.width == 32 && model.phase.label == "loading with preview")
        #expect(loader.events.count("finished:hashed") == 0)
        // Without a hash, nothing to show yet
        #expect(model.phase(for: ImageRequest(source: .controlled("plain"))).label == "empty")

        // Then the image replaces it
        loader.release("hashed")
        await waitUntil(model) { $0.response != nil }
        #expect(model.phase.preview == nil && model.phase.response?.image.width == 64)
    }

    @Test("AsyncPhoto's first body hands its content the decoded placeholder")
    func asyncPhotoPlaceholder() throws {
        var request = ImageRequest(source: .controlled("never"), resize: .fit(width: 64, height: 64))
        request.placeholder = .thumbHash(try ThumbHash(image: Bitmap(width: 30, height: 20, filledWith: RGBA(red: 20, green: 90, blue: 240))))
        var seen: [String] = []
        let view = AsyncPhoto(request: request) { phase in
            let _ = seen.append(phase.image != nil ? "image" : phase.preview != nil ? "preview" : "placeholder")
            Color.clear
        }
        _ = view.body
        #expect(seen == ["preview"])
    }
}

/// Progressive previews in the model.
@MainActor
@Suite(.timeLimit(.minutes(10)))
struct ProgressiveModelTests {
    @Test("The model shows a progressive JPEG's scans as its preview while it downloads, then the image")
    func showsPreviews() async throws {
        // Given a progressive JPEG of which 40% has arrived, and a pipeline with previews on
        let loader = SplitLoader(bytes: Fixtures.meadow, split: Fixtures.meadow.count * 4 / 10)
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.dataLoader = loader
            $0.isProgressiveDecodingEnabled = true
            $0.progressiveDecodingInterval = .zero
        })
        let model = ImageModel(pipeline: pipeline)
        let request = ImageRequest(source: .custom(id: "meadow") { [] }, resize: .fill(width: 200, height: 160))

        // When it loads, the phase is loading with a preview at the request's size
        model.load(request)
        await waitUntil(model) { $0.preview != nil }
        #expect(model.phase.preview?.width == 200 && model.phase.preview?.height == 160)
        #expect(model.phase.isLoading)
        #expect(pipeline.cachedImage(for: request) == nil, "a preview is never cached")

        // Then the image replaces it
        loader.open()
        await waitUntil(model) { $0.response != nil }
        #expect(model.phase.response?.image.width == 200)
    }
}
