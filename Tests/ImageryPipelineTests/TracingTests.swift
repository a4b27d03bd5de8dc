import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import InMemoryTracing
import Testing
import Tracing

/// The pipeline's spans, read from a tracer bound to each test's task (`withTracer`), so
/// parallel tests never see each other's spans.
@Suite(.timeLimit(.minutes(10)))
struct TracingTests {
    @Test("A load is one request span over its fetch, decode and process jobs, in the caller's trace, naming the host and not the path")
    func stagesAreChildSpans() async throws {
        let server = try TestHTTPServer { _ in .ok(Fixtures.rocket) }
        defer { server.stop() }
        let tracer = InMemoryTracer()
        let pipeline = Fixtures.pipeline(cache: nil)
        let url = server.url("/secret-path/rocket.jpg?X-Amz-Signature=abc")

        try await withTracer(tracer) {
            try await withSpan("caller") { _ in
                var request = ImageRequest(url: url, resize: .fit(width: 32, height: 32))
                request.processors = [.circle]
                _ = try await pipeline.response(for: request)
            }
        }

        let spans = tracer.finishedSpans
        let byName = Dictionary(spans.map { ($0.operationName, $0) }, uniquingKeysWith: { first, _ in first })
        let caller = try #require(byName["caller"]), image = try #require(byName["imagery.image"])
        let process = try #require(byName["imagery.process"]), decode = try #require(byName["imagery.decode"])
        let fetch = try #require(byName["imagery.fetch"])
        #expect(image.parentSpanID == caller.spanID)
        #expect(process.parentSpanID == image.spanID)
        #expect(decode.parentSpanID == process.spanID)
        #expect(fetch.parentSpanID == decode.spanID)
        #expect(Set(spans.map(\.traceID)).count == 1)
        #expect(fetch.attributes["server.address"]?.toSpanAttribute() == "127.0.0.1")
        #expect(image.attributes["imagery.origin"]?.toSpanAttribute() == "source")
        #expect(fetch.events.map(\.name).contains("started"))
        for span in spans {
            span.attributes.forEach { _, value in
                #expect(!"\(value)".contains("secret-path") && !"\(value)".contains("X-Amz-Signature"), "\(span.operationName) names the path")
            }
            #expect(span.status == nil, "\(span.operationName) failed")
        }
    }

    @Test("Requests that coalesce share one job span: the first request's span is its parent, each later one links to it")
    func coalescedRequestsLink() async throws {
        let gate = Gate()
        let server = try TestHTTPServer { _ in .gated(Fixtures.rocket, gate: gate) }
        defer { server.stop() }
        let tracer = InMemoryTracer()
        let pipeline = Fixtures.pipeline(cache: nil)
        let request = ImageRequest(url: server.url("/rocket.jpg"), resize: .fit(width: 32, height: 32))

        try await withTracer(tracer) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { _ = try await pipeline.response(for: request) }
                await pipeline.graph.waitUntil { $0.registeredCount == 1 }
                for _ in 0..<2 { group.addTask { _ = try await pipeline.response(for: request) } }
                await pipeline.graph.waitUntil { $0.registeredCount == 3 }
                gate.open()
                try await group.waitForAll()
            }
        }

        let spans = tracer.finishedSpans
        let process = try #require(spans.first { $0.operationName == "imagery.process" })
        #expect(spans.filter { $0.operationName == "imagery.process" }.count == 1)
        #expect(spans.filter { $0.operationName == "imagery.fetch" }.count == 1)
        let images = spans.filter { $0.operationName == "imagery.image" }
        #expect(images.count == 3)
        let first = try #require(images.first { $0.spanID == process.parentSpanID })
        let later = images.filter { $0.spanID != first.spanID }
        #expect(later.count == 2)
        for span in later {
            #expect(span.links.count == 1)
            #expect(span.links.first?.context.inMemorySpanContext?.spanID == process.spanID)
        }
        #expect(first.links.isEmpty)
    }

    @Test("Work that waits for a slot has an imagery.wait span under its job, from queued to started; work that starts at once has none")
    func waitForASlotIsASpan() async throws {
        let loader = ControlledLoader()
        let tracer = InMemoryTracer()
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.dataLoader = loader
            $0.maximumConcurrentDownloads = 1
            $0.maximumConcurrentDecodes = 2
        })

        try await withTracer(tracer) {
            // Given the only download slot taken, a second download queued behind it
            let first = pipeline.imageTask(with: ImageRequest(source: .controlled("first")))
            await loader.events.wait(for: "started:first")
            let second = pipeline.imageTask(with: ImageRequest(source: .controlled("second")))
            await pipeline.graph.waitUntil { $0.waitingDownloads == 1 }
            loader.releaseAll()
            _ = try await first.response
            _ = try await second.response
        }

        let spans = tracer.finishedSpans
        let fetches = spans.filter { $0.operationName == "imagery.fetch" }
        let waits = spans.filter { $0.operationName == "imagery.wait" }
        #expect(fetches.count == 2)
        // Two decodes and two processing runs fit their two slots each: one wait, the second download's.
        let wait = try #require(waits.count == 1 ? waits.first : nil, "\(waits.count) waits")
        let waited = try #require(fetches.first { $0.spanID == wait.parentSpanID }, "the wait is a download's")
        #expect(wait.startInstant.nanosecondsSinceEpoch >= waited.startInstant.nanosecondsSinceEpoch)
        #expect(wait.endInstant.nanosecondsSinceEpoch <= waited.endInstant.nanosecondsSinceEpoch)
    }

    @Test("A missing source fails every span up the chain with the failure's kind; a cancelled request is not a failure")
    func failuresAreMarked() async throws {
        let gate = Gate()
        let server = try TestHTTPServer { request in request.path == "/missing.jpg" ? .status(404) : .gated(Fixtures.rocket, gate: gate) }
        defer { server.stop() }
        defer { gate.open() }
        let tracer = InMemoryTracer()
        let pipeline = Fixtures.pipeline(cache: nil)

        await withTracer(tracer) {
            _ = try? await pipeline.response(for: ImageRequest(url: server.url("/missing.jpg")))
            let task = pipeline.imageTask(with: ImageRequest(url: server.url("/held.jpg")))
            await pipeline.graph.waitUntil { $0.registeredCount == 1 }
            task.cancel()
            _ = try? await task.response
            // The download's span lasts until its work has stopped: let it.
            await pipeline.graph.waitUntil { $0.registeredCount == 0 }
            gate.open()
            await pipeline.graph.waitUntil { $0.isIdle }
        }

        let spans = tracer.finishedSpans
        for name in ["imagery.image", "imagery.process", "imagery.decode", "imagery.fetch"] {
            let failed = spans.filter { $0.operationName == name && $0.status?.code == .error }
            #expect(failed.count == 1, "\(name)")
            #expect(failed.first?.attributes["error.type"]?.toSpanAttribute() == "not_found", "\(name)")
        }
        let cancelled = spans.filter { $0.attributes["imagery.cancelled"] != nil }
        #expect(cancelled.contains { $0.operationName == "imagery.image" }, "the cancelled request")
        #expect(cancelled.contains { $0.operationName == "imagery.fetch" }, "its download, which nobody else waited for")
        #expect(cancelled.allSatisfy { $0.status == nil })
    }
}
