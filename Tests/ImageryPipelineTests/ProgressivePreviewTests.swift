import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// Progressive previews: scans of a progressive JPEG shown while it downloads.
// The limit is a hang's bound, not a timing: in a full run on two cores a preview's decode waits
// behind the other suites' heavy work on the shared heavy-work threads.
@Suite(.timeLimit(.minutes(10)))
struct ProgressivePreviewTests {
    /// The meadow (1280x1024, progressive), at 320x256.
    let request = ImageRequest(source: .custom(id: "meadow") { [] }, resize: .fit(width: 320, height: 256))

    func pipeline(_ loader: any DataLoading, previews: Bool) -> ImagePipeline {
        ImagePipeline(configuration: .standard.with {
            $0.dataLoader = loader
            $0.isProgressiveDecodingEnabled = previews
            $0.progressiveDecodingInterval = .zero
        })
    }

    /// The events of `request`, opening `loader` once the first preview came (or at once when
    /// none is expected).
    func events(_ pipeline: ImagePipeline, _ request: ImageRequest, opening loader: SplitLoader, expectingPreview: Bool) async throws -> (previews: [Bitmap], response: ImageResponse?) {
        if !expectingPreview { loader.open() }
        var previews: [Bitmap] = []
        var response: ImageResponse?
        for try await event in pipeline.events(for: request) {
            switch event {
            case .progress: break
            case let .preview(preview):
                previews.append(preview)
                loader.open()
            case let .finished(finished): response = finished
            }
        }
        return (previews, response)
    }

    @Test("Scans arrive as previews at the request's size, and only the final image is cached")
    func previewsThenFinal() async throws {
        // Given a progressive JPEG of which 40% has arrived
        let loader = SplitLoader(bytes: Fixtures.meadow, split: Fixtures.meadow.count * 4 / 10)
        let pipeline = pipeline(loader, previews: true)

        // When the pipeline loads it with previews on
        let (previews, response) = try await events(pipeline, request, opening: loader, expectingPreview: true)

        // Then a preview came before the rest of the bytes, at the final size, upright, and
        // already like the image (a blurred version of it)
        let final = try #require(response).image
        let first = try #require(previews.first)
        #expect((first.width, first.height) == (320, 256))
        #expect((final.width, final.height) == (320, 256))
        #expect(first.orientation == .up)
        let likeness = ImageComparison.psnr(first, final)
        #expect(likeness > 18, "a preview should already look like the image: \(likeness) dB")
        #expect(first.pixels != final.pixels)

        // Only the final image is in the memory cache, and it was decoded once
        #expect(pipeline.cachedImage(for: request)?.image.pixels == final.pixels)
        #expect(pipeline.statistics.decodes == 1)
        #expect(loader.loads == 1)
    }

    @Test("Off by default: no previews")
    func offByDefault() async throws {
        let loader = SplitLoader(bytes: Fixtures.meadow, split: Fixtures.meadow.count / 2)
        let (previews, response) = try await events(pipeline(loader, previews: false), request, opening: loader, expectingPreview: false)
        #expect(previews.isEmpty)
        #expect(response?.image.width == 320)
        #expect(loader.loads == 1)
    }

    @Test("A request can turn previews on when the pipeline has them off, and off when it has them on")
    func perRequest() async throws {
        var on = request
        on.progressivePreviews = true
        let first = SplitLoader(bytes: Fixtures.meadow, split: Fixtures.meadow.count / 2)
        let (previews, _) = try await events(pipeline(first, previews: false), on, opening: first, expectingPreview: true)
        #expect(!previews.isEmpty)

        var off = request
        off.progressivePreviews = false
        let second = SplitLoader(bytes: Fixtures.meadow, split: Fixtures.meadow.count / 2)
        let (none, _) = try await events(pipeline(second, previews: true), off, opening: second, expectingPreview: false)
        #expect(none.isEmpty)
        #expect(second.loads == 1)
    }

    @Test("Previews are processed as the image is")
    func processedPreviews() async throws {
        var circle = request
        circle.resize = .fill(width: 128, height: 128)
        circle.processors = [.circle]
        let loader = SplitLoader(bytes: Fixtures.meadow, split: Fixtures.meadow.count / 2)
        let (previews, response) = try await events(pipeline(loader, previews: true), circle, opening: loader, expectingPreview: true)
        let preview = try #require(previews.first)
        #expect((preview.width, preview.height) == (128, 128))
        #expect(preview.pixel(x: 0, y: 0).alpha == 0, "the corner is outside the circle")
        #expect(response?.image.pixel(x: 0, y: 0).alpha == 0)
    }

    @Test("A baseline JPEG and a PNG give no previews, and load as usual")
    func nothingToPreview() async throws {
        for bytes in [Fixtures.rocket, Fixtures.logo] {
            let loader = SplitLoader(bytes: bytes, split: bytes.count / 2)
            let (previews, response) = try await events(pipeline(loader, previews: true), request, opening: loader, expectingPreview: false)
            #expect(previews.isEmpty)
            #expect(response != nil)
        }
    }

    @Test("Damage after the first scans: the previews stop and the image fails with a typed error, never half an image")
    func damagedDownload() async throws {
        // Given the meadow with 8 KB of noise where its second half should be
        var damaged = Fixtures.meadow
        var random = SplitMix64(state: 25)
        let start = damaged.count / 2
        for index in start..<(start + 8192) { damaged[index] = UInt8(truncatingIfNeeded: random.next()) }
        let loader = SplitLoader(bytes: damaged, split: damaged.count * 4 / 10)

        // When it loads, strictly
        var strict = request
        strict.decodingPolicy = .strict
        var previews: [Bitmap] = []
        await #expect(throws: ImagePipelineError.self) {
            for try await event in pipeline(loader, previews: true).events(for: strict) {
                if case let .preview(preview) = event {
                    previews.append(preview)
                    loader.open()
                }
            }
        }

        // Then the previews made of the good part were whole pictures
        #expect(!previews.isEmpty)
        #expect(previews.allSatisfy { $0.width == 320 && $0.height == 256 })
    }

    @Test("An image over the pixel limit fails as too large with previews on (the preview decoder's own refusal is JPEGProgressiveDecoderTests')")
    func overTheLimit() async throws {
        var limited = request
        limited.maximumPixelCount = 1000
        let loader = SplitLoader(bytes: Fixtures.meadow, split: Fixtures.meadow.count / 2)
        loader.open()
        await #expect(throws: ImagePipelineError.decodingFailed(source: "custom:meadow", .tooLarge(width: 1280, height: 1024, limit: 1000))) {
            for try await _ in pipeline(loader, previews: true).events(for: limited) {}
        }
    }

    @Test("Over HTTP on loopback, DataLoader hands the bytes on as they arrive: a preview before the second half is sent")
    func overHTTP() async throws {
        let gate = Gate()
        defer { gate.open() }
        let server = try TestHTTPServer { _ in .gated(Fixtures.meadow, gate: gate) }
        defer { server.stop() }
        // The origin waits for the preview, whose decode may wait behind a full run's heavy work:
        // longer than the 30 s the loader gives a silent origin by default.
        var loading = DataLoader.Configuration()
        loading.timeout = .seconds(300)
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.dataLoader = DataLoader(configuration: loading)
            $0.isProgressiveDecodingEnabled = true
            $0.progressiveDecodingInterval = .zero
        })
        var previews = 0
        var final: ImageResponse?
        for try await event in pipeline.events(for: ImageRequest(url: server.url("/meadow.jpg"), resize: .fit(width: 320, height: 256))) {
            switch event {
            case .progress: break
            case .preview:
                previews += 1
                gate.open()
            case let .finished(response): final = response
            }
        }
        #expect(previews >= 1)
        #expect(final?.image.width == 320)
    }
}
