import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// The third stage, counted where it matters: downloads at a real HTTP server on
/// 127.0.0.1, decodes and processing runs in the pipeline's statistics.
@Suite(.timeLimit(.minutes(10)))
struct ProcessingStageTests {
    private func request(_ url: URL, _ processors: [any ImageProcessing]) -> ImageRequest {
        var request = ImageRequest(url: url, resize: .fill(width: 64, height: 64))
        request.processors = processors
        return request
    }

    /// Starts `requests` together, holds the server until all have joined, then collects
    /// their results in order.
    private func loadTogether(
        _ requests: [ImageRequest], pipeline: ImagePipeline, gate: Gate
    ) async -> [Result<ImageResponse, ImagePipelineError>] {
        let tasks = requests.map { pipeline.imageTask(with: $0) }
        await pipeline.graph.waitUntil { $0.registeredCount == requests.count }
        gate.open()
        var results: [Result<ImageResponse, ImagePipelineError>] = []
        for task in tasks { results.append(await task.outcome()) }
        return results
    }

    @Test("Three requests that differ only in processors: 1 download, 1 decode, 3 processing runs")
    func differentProcessors() async throws {
        let gate = Gate()
        let server = try TestHTTPServer { _ in .gated(Fixtures.rocket, gate: gate) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        let url = server.url("/avatar.jpg")
        let radii = [4.0, 8, 12]

        let results = await loadTogether(radii.map { request(url, [.roundedCorners($0)]) }, pipeline: pipeline, gate: gate)

        #expect(server.hits("/avatar.jpg") == 1)
        let stats = pipeline.statistics
        #expect(stats.downloads == 1)
        #expect(stats.decodes == 1)
        #expect(stats.processingRuns == 3)
        // Each caller got its own radius: the pixel at (3, 3) is inside the 4 px corner only.
        let alphas = try results.map { try $0.get().image.pixel(x: 2, y: 2).alpha }
        #expect(alphas[0] == 255 && alphas[1] < 255 && alphas[2] < alphas[1])
    }

    @Test("Three identical requests: 1 download, 1 decode, 1 processing run")
    func identicalProcessors() async throws {
        let gate = Gate()
        let server = try TestHTTPServer { _ in .gated(Fixtures.rocket, gate: gate) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        let url = server.url("/same.jpg")

        let results = await loadTogether((0..<3).map { _ in request(url, [.blur(sigma: 2), .circle]) }, pipeline: pipeline, gate: gate)

        #expect(server.hits("/same.jpg") == 1)
        #expect(pipeline.statistics.decodes == 1)
        #expect(pipeline.statistics.processingRuns == 1)
        let images = try results.map { try $0.get().image }
        #expect(images.allSatisfy { $0 == images[0] && $0.pixel(x: 0, y: 0).alpha == 0 })
    }

    @Test("Cancelling one of two processing waiters leaves the other's result intact")
    func cancelOneOfTwo() async throws {
        let gate = Gate()
        let server = try TestHTTPServer { _ in .gated(Fixtures.rocket, gate: gate) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        let processed = request(server.url("/two.jpg"), [.sharpen(), .roundedCorners(6)])

        let leaving = pipeline.imageTask(with: processed)
        let staying = pipeline.imageTask(with: processed)
        await pipeline.graph.waitUntil { $0.registeredCount == 2 }
        leaving.cancel()
        gate.open()

        #expect(await leaving.outcome().isCancelled)
        let response = try await staying.outcome().get()
        let alone = try ImageProcessors.RoundedCorners(radius: 6).process(
            ImageProcessors.Sharpen().process(ImageDecoder().decode(Fixtures.rocket, resize: .fill(width: 64, height: 64), allowsUpscaling: false, options: DecodingOptions()))
        )
        #expect(response.image.packedPixels == alone.packedPixels)
        #expect(pipeline.statistics.processingRuns == 1)
    }

    @Test("A custom async processor is cancelled when its last waiter leaves")
    func asyncProcessorCancelled() async throws {
        let events = EventCounter()
        let slow = ImageProcessors.AsyncClosure(id: "slow") { image in
            events.record("started")
            do {
                // Stands for long async work (an ML model); it ends only by cancellation.
                try await suspendUntilCancelled()
            } catch {
                events.record("cancelled")
                throw error
            }
            return image
        }
        let pipeline = Fixtures.pipeline()
        var request = ImageRequest(source: .custom(id: "slow-photo") { Fixtures.rocket }, resize: .fit(width: 32, height: 32))
        request.processors = [slow]
        let first = pipeline.imageTask(with: request)
        let second = pipeline.imageTask(with: request)
        await events.wait(for: "started")
        first.cancel()
        await pipeline.graph.waitUntil { $0.registeredCount == 1 }
        #expect(events.count("cancelled") == 0)   // one waiter is left: the run goes on
        second.cancel()
        await events.wait(for: "cancelled")
        #expect(await second.outcome().isCancelled)
        await pipeline.waitUntilIdle()
        #expect(events.count("started") == 1)
    }

    @Test("A failing processor fails only the requests that use it, with its name")
    func processorFailure() async throws {
        let pipeline = Fixtures.pipeline()
        let source = ImageSource.custom(id: "fails") { Fixtures.rocket }
        var bad = ImageRequest(source: source, resize: .fit(width: 32, height: 32))
        bad.processors = [.crop(width: 0, height: 1)]
        let good = ImageRequest(source: source, resize: .fit(width: 32, height: 32))
        async let badResult = pipeline.imageTask(with: bad).outcome()
        async let goodResult = pipeline.imageTask(with: good).outcome()
        guard case .failure(.processingFailed(_, .invalidRequest)) = await badResult else {
            Issue.record("expected processingFailed(invalidRequest)")
            return
        }
        #expect(try await goodResult.get().image.width == 32)
    }
}

/// Every option that changes the result or the work is in the key of the stage it affects:
/// two concurrent callers that differ only in it each get exactly what they asked for.
@Suite(.timeLimit(.minutes(10)))
struct OptionIsolationTests {
    @Test("A stricter pixel limit is honoured while a looser caller shares the download")
    func pixelLimit() async throws {
        let gate = Gate()
        let server = try TestHTTPServer { _ in .gated(Fixtures.rocket, gate: gate) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        let loose = ImageRequest(url: server.url("/limit.jpg"), resize: .fit(width: 64, height: 64))
        var strict = loose
        strict.maximumPixelCount = 1000

        let a = pipeline.imageTask(with: loose), b = pipeline.imageTask(with: strict)
        await pipeline.graph.waitUntil { $0.registeredCount == 2 }
        gate.open()
        #expect(try await a.outcome().get().image.width == 64)
        guard case .failure(.decodingFailed(_, .tooLarge)) = await b.outcome() else {
            Issue.record("the strict caller should be refused")
            return
        }
        #expect(server.hits("/limit.jpg") == 1)
        // And the loose caller's image in memory does not answer the strict one either.
        #expect(pipeline.cachedImage(for: strict) == nil)
        #expect(pipeline.cachedImage(for: loose) != nil)
    }

    @Test("A strict and a lenient caller of one damaged file each get their policy")
    func policy() async throws {
        let gate = Gate()
        let truncated = Array(Fixtures.rocket.prefix(Fixtures.rocket.count * 2 / 3))
        let server = try TestHTTPServer { _ in .gated(truncated, gate: gate) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        let strict = ImageRequest(url: server.url("/cut.jpg"), resize: .fit(width: 64, height: 64))
        var lenient = strict
        lenient.decodingPolicy = .lenient

        let a = pipeline.imageTask(with: strict), b = pipeline.imageTask(with: lenient)
        await pipeline.graph.waitUntil { $0.registeredCount == 2 }
        gate.open()
        guard case .failure(.decodingFailed(_, .truncated)) = await a.outcome() else {
            Issue.record("the strict caller should get truncated")
            return
        }
        #expect(try await b.outcome().get().image.metadata.isIncomplete)
        #expect(server.hits("/cut.jpg") == 1)
    }

    @Test("Skipping the memory-cache read loads afresh while another caller gets the hit")
    func skipMemoryRead() async throws {
        let server = try TestHTTPServer { _ in .ok(Fixtures.rocket) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        let cached = ImageRequest(url: server.url("/mem.jpg"), resize: .fit(width: 64, height: 64))
        _ = try await pipeline.response(for: cached)
        var fresh = cached
        fresh.options.insert(.skipMemoryCacheRead)

        async let hit = pipeline.response(for: cached)
        async let reload = pipeline.response(for: fresh)
        _ = try await (hit, reload)
        #expect(server.hits("/mem.jpg") == 2)
        #expect(pipeline.statistics.memoryHits == 1)
    }

    @Test("A caller that skips the memory-cache write does not stop another caller's write")
    func skipMemoryWrite() async throws {
        let (first, second) = (Gate(), Gate())
        let server = try TestHTTPServer { request in .gated(Fixtures.rocket, gate: request.path == "/alone.jpg" ? first : second) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        func requests(_ path: String) -> (writes: ImageRequest, skips: ImageRequest) {
            let writes = ImageRequest(url: server.url(path), resize: .fit(width: 64, height: 64))
            var skips = writes
            skips.options.insert(.skipMemoryCacheWrite)
            return (writes, skips)
        }

        // Alone, the skipping caller leaves nothing in memory.
        let alone = requests("/alone.jpg")
        let task = pipeline.imageTask(with: alone.skips)
        await pipeline.graph.waitUntil { $0.registeredCount == 1 }
        first.open()
        _ = try await task.outcome().get()
        #expect(pipeline.cachedImage(for: alone.writes) == nil)

        // Together, the writing caller's entry is stored, and both get the image.
        let together = requests("/together.jpg")
        let a = pipeline.imageTask(with: together.skips), b = pipeline.imageTask(with: together.writes)
        await pipeline.graph.waitUntil { $0.registeredCount == 2 }
        second.open()
        _ = try await (a.outcome().get(), b.outcome().get())
        #expect(pipeline.cachedImage(for: together.writes) != nil)
        #expect(server.hits("/together.jpg") == 1)
    }
}

extension Result where Failure == ImagePipelineError {
    var isCancelled: Bool {
        if case .failure(.cancelled) = self { true } else { false }
    }
}
