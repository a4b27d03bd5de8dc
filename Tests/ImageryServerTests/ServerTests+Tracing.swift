import Foundation
import Hummingbird
@testable import ImageryServer
import ImageryTestSupport
import InMemoryTracing
import Logging
import Testing
import Tracing

/// Request ids and the request's spans, read from a tracer bound to the test's task
/// (`withTracer`): the server it starts inherits it, and parallel tests never share one.
extension ServerTests {
    @Test("X-Request-ID: a valid one is kept, an invalid one replaced, and every answer, errors too, carries it")
    func requestIDs() async throws {
        let server = try await ServerHarness.start()
        defer { server.cancel() }

        let kept = try await server.get("/health", headers: [("X-Request-ID", "edge-42_a")])
        #expect(kept.header("x-request-id") == "edge-42_a")
        for invalid in ["has space", String(repeating: "a", count: 129), "semi;colon"] {
            let replaced = try await server.get("/unsafe/rs:fit:10:10/plain/http://127.0.0.1:9/x.jpg", headers: [("X-Request-ID", invalid)])
            let id = try #require(replaced.header("x-request-id"))
            // Hummingbird's: its process's random half unpadded (shorter one process in 16),
            // then its counter in 16 hex digits.
            #expect(id != invalid && RequestID.accepted(id) == id && (17...32).contains(id.count) && id.allSatisfy(\.isHexDigit), "\(id)")
        }
        let refused = try await server.get("/not-a-signature/rs:fit:10:10/plain/x")
        #expect(refused.status >= 400 && refused.header("x-request-id") != nil)
    }

    @Test("Every line about a request carries its id, whichever logger wrote it, beside the trace's ids")
    func logLinesCarryTheRequestID() {
        let traced = Logger.MetadataProvider { ["trace_id": "0af7651916cd43dd8448eb211c80319c"] }
        let provider = ServerLogHandler.requestMetadata(traced: traced)
        let inside = ServiceContext.withValue(Self.context(id: "req-1")) { provider.get() }
        #expect(inside["hb.request.id"] == "req-1" && inside["trace_id"] == "0af7651916cd43dd8448eb211c80319c")
        #expect(provider.get()["hb.request.id"] == nil)

        var handler = ServerLogHandler(label: "test", format: .json, metadataProvider: provider)
        handler[metadataKey: "explicit"] = "kept"
        let metadata = ServiceContext.withValue(Self.context(id: "req-2")) { handler.mergedMetadata(nil) }
        #expect(metadata["hb.request.id"] == "req-2" && metadata["explicit"] == "kept")
    }

    static func context(id: String) -> ServiceContext {
        var context = ServiceContext.topLevel
        context[RequestID.self] = id
        return context
    }

    @Test("The request log names a source without its query, password or encoded text", arguments: [
        ("/sig/rs:fit:10:10/plain/https://user:pw@cdn.test/a.jpg%3FX-Amz-Signature%3Dsecret@webp", "/sig/rs:fit:10:10/plain/https://cdn.test/a.jpg?…"),
        ("/sig/rs:fit:10:10/aHR0cHM6Ly9jZG4udGVzdC9hLmpwZz9zZWNyZXQ.webp", "/sig/rs:fit:10:10/…"),
        ("/info/sig/w:5/aHR0cHM6Ly9jZG4udGVzdC9hLmpwZz9zZWNyZXQ", "/info/sig/w:5/…"),
        ("/health", "/health"),
    ])
    func requestLogRedaction(path: String, logged: String) {
        #expect(RequestLogMiddleware<BasicRequestContext>.redacted(path) == logged)
    }

    @Test("A request's span continues the caller's trace, parents the pipeline's and encode's spans, names the tier that answered and no path, and a missing source fails it")
    func requestSpans() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let tracer = InMemoryTracer()
        // The server's task inherits the tracer; the test's client, outside it, is not traced.
        let server = try await withTracer(tracer) {
            try await ServerHarness.start {
                $0.allowLoopbackSources = true
                $0.telemetry.enabled = true   // the request spans; the tracer is the test's
            }
        }
        defer { server.cancel() }
        let ok = try await server.get(Self.plain(origin, "/rocket.jpg"), headers: [
            (InMemoryTracer.traceIDKey, "caller-trace"), (InMemoryTracer.spanIDKey, "caller-span"), ("X-Request-ID", "traced-1"),
        ])
        let missing = try await server.get(Self.plain(origin, "/missing.jpg"))
        let again = try await server.get(Self.plain(origin, "/rocket.jpg"), headers: [("X-Request-ID", "traced-2")])
        #expect(again.status == 200)
        #expect(ok.status == 200 && missing.status == 404)

        let spans = tracer.finishedSpans
        let requests = spans.filter { $0.kind == .server }
        let served = try #require(requests.first { $0.attributes["imagery.request_id"]?.toSpanAttribute() == "traced-1" })
        #expect(served.traceID == "caller-trace" && served.parentSpanID == "caller-span")
        #expect(served.operationName == "GET /**")
        #expect(served.attributes["http.response.status_code"]?.toSpanAttribute() == 200)
        #expect(served.status == nil)
        #expect(served.attributes["imagery.cache.tier"]?.toSpanAttribute() == "none")
        let children = spans.filter { $0.parentSpanID == served.spanID }.map(\.operationName)
        for name in ["imagery.image", "imagery.encode"] { #expect(children.contains(name), "\(name) under the request") }
        let hit = try #require(requests.first { $0.attributes["imagery.request_id"]?.toSpanAttribute() == "traced-2" })
        #expect(hit.attributes["imagery.cache.tier"]?.toSpanAttribute() == "memory")
        #expect(!spans.contains { $0.parentSpanID == hit.spanID }, "a memory hit is one span")
        #expect(spans.filter { $0.traceID == "caller-trace" }.map(\.operationName).contains("imagery.fetch"))

        let failed = try #require(requests.first { $0.attributes["http.response.status_code"]?.toSpanAttribute() == 404 })
        #expect(failed.status?.code == .error)
        #expect(failed.attributes["error.type"]?.toSpanAttribute() == "404")
        #expect(spans.contains { $0.traceID == failed.traceID && $0.operationName == "imagery.fetch" && $0.status?.code == .error })
        for span in spans {
            span.attributes.forEach { _, value in #expect(!"\(value)".contains("rocket.jpg"), "\(span.operationName) names the source's path") }
        }
    }
}
