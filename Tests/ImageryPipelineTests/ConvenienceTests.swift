import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// The shapes a Nuke or Kingfisher user reaches for first: URLs, strings, `Data`, typed events.
@Suite(.timeLimit(.minutes(10)))
struct ConvenienceTests {
    let rocketURL = Fixtures.directory.appendingPathComponent("jpeg_small_base_rocket_640x427.jpg")

    @Test("image(for: URL) and ImageRequest(url: String) load like a request for the URL")
    func urlAndString() async throws {
        let pipeline = ImagePipeline(configuration: .standard)
        let byURL = try await pipeline.response(for: rocketURL)
        #expect((byURL.image.width, byURL.image.height) == (640, 427))
        // The same source through a string: the same cache key, so a memory hit.
        let byString = try await pipeline.response(for: ImageRequest(url: rocketURL.absoluteString))
        #expect(byString.origin == .memory)
    }

    @Test("A string that is not a URL fails with a typed error naming it, at load time")
    func invalidURLString() async throws {
        let pipeline = ImagePipeline(configuration: .standard)
        await #expect(throws: ImagePipelineError.loadingFailed(.unsupportedSource("not a URL: not a url"))) {
            try await pipeline.response(for: ImageRequest(url: "not a url"))
        }
    }

    @Test("A custom source may return Data")
    func dataSource() async throws {
        let pipeline = ImagePipeline(configuration: .standard)
        let bytes = Data(Fixtures.gif)
        let response = try await pipeline.response(for: ImageRequest(source: .custom(id: "data-gif") { bytes }))
        #expect((response.image.width, response.image.height) == (256, 171))
    }

    @Test("data(for:) returns the original bytes, then from the disk cache when it keeps originals")
    func originalData() async throws {
        let disk = MemoryDataCache()
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.dataCache = disk
            $0.dataCachePolicy = .originalData
        })
        let request = ImageRequest(url: rocketURL, resize: .width(10))   // resize does not apply
        let first = try await pipeline.data(for: request)
        #expect(first == Data(Fixtures.rocket))
        await pipeline.waitUntilIdle()   // the disk write runs in the background
        let second = try await pipeline.data(for: request)
        #expect(second == first)
        let stats = pipeline.statistics
        #expect(stats.requests == 2 && stats.downloads == 1 && stats.diskHits == 1 && stats.diskWrites == 1)
        #expect(stats.decodes == 0)
    }

    @Test("data(for:) fails with the pipeline's typed error")
    func originalDataFailure() async throws {
        let pipeline = ImagePipeline(configuration: .standard)
        await #expect(throws: ImagePipelineError.loadingFailed(.notFound(source: "/nonexistent/imagery.jpg"))) {
            try await pipeline.data(for: ImageRequest(source: .file("/nonexistent/imagery.jpg")))
        }
        #expect(pipeline.statistics.failures["not_found"] == 1)
    }

    @Test("events(for:) throws ImagePipelineError itself: a typed catch needs no cast")
    func typedEvents() async throws {
        let pipeline = ImagePipeline(configuration: .standard)
        var finished = 0
        for try await event in pipeline.events(for: ImageRequest(url: rocketURL)) {
            if case .finished = event { finished += 1 }
        }
        #expect(finished == 1)

        let failing = ImageRequest(source: .custom(id: "events-junk") { Array("junk".utf8) })
        var caught: ImagePipelineError?
        do {
            for try await _ in pipeline.events(for: failing) {}
        } catch {
            caught = error   // `error` is ImagePipelineError here, not `any Error`
        }
        #expect(caught?.kind == "decoding")
    }

    @Test("data(for:) shares the download of an image of the same source already under way")
    func originalDataJoinsImageDownload() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)
        let image = pipeline.imageTask(with: ImageRequest(source: .controlled("shared"), resize: .width(64)))
        await loader.events.wait(for: "started:shared")

        async let original = pipeline.data(for: ImageRequest(source: .controlled("shared")))
        await pipeline.graph.waitUntil { $0.dataTaskCount == 1 }
        loader.release("shared")

        #expect(try await original == Data(Fixtures.rocket))
        #expect(try await image.response.image.width == 64)
        #expect(loader.events.count("started:shared") == 1)
        #expect(pipeline.statistics.coalesced == 1)
    }

    @Test("Cancelling the only data(for:) caller cancels its download; another caller keeps it")
    func originalDataCancellation() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader)

        // One caller alone: cancelling it cancels the download.
        let lonely = Task { try await pipeline.data(for: ImageRequest(source: .controlled("lonely"))) }
        await loader.events.wait(for: "started:lonely")
        lonely.cancel()
        await #expect(throws: ImagePipelineError.cancelled) { try await lonely.value }
        await loader.events.wait(for: "cancelled:lonely")

        // Two callers: one leaves, the download goes on for the other.
        let leaving = Task { try await pipeline.data(for: ImageRequest(source: .controlled("kept"))) }
        let staying = Task { try await pipeline.data(for: ImageRequest(source: .controlled("kept"))) }
        await pipeline.graph.waitUntil { $0.dataTaskCount == 2 }
        leaving.cancel()
        await #expect(throws: ImagePipelineError.cancelled) { try await leaving.value }
        await pipeline.graph.waitUntil { $0.dataTaskCount == 1 }
        loader.release("kept")
        #expect(try await staying.value == Data(Fixtures.rocket))
        #expect(loader.events.count("cancelled:kept") == 0)
        await pipeline.waitUntilIdle()
    }
}
