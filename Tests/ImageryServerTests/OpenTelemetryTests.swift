import Foundation
import Imagery
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// imagery-server built with the OpenTelemetry trait, as an operator runs it: imgproxy's
/// environment with the protocol set, sending to a collector on loopback (Python's
/// opentelemetry-proto decoding each export), which writes every span and log record it gets
/// to a file, one JSON object a line.
@Suite(
    "OpenTelemetry over OTLP/HTTP", .tags(.integration), .offUnderSanitizer, .timeLimit(.minutes(5)),
    .enabled(if: CIRun.runs(needingTrait: "OpenTelemetry", compiled: Telemetry.isAvailable), "needs a build with --traits OpenTelemetry"),
    .enabled(if: CIRun.runs(needing: OTLPCollector.isAvailable), "needs python3's opentelemetry-proto (.ci/run installs it)")
)
struct OpenTelemetryTests {
    /// Receives OTLP/HTTP protobuf on 127.0.0.1 and writes each span and log record to a file;
    /// says `got <span name>` and `log` for each, so a test can await them.
    static let collector = #"""
        import http.server, json, sys
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse
        from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse
        out = open(sys.argv[1], "a")
        def value(any_value):
            kind = any_value.WhichOneof("value")
            return getattr(any_value, kind) if kind else None
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                said = []
                if self.path == "/v1/traces":
                    request = ExportTraceServiceRequest.FromString(body)
                    reply = ExportTraceServiceResponse()
                    for resource in request.resource_spans:
                        service = {a.key: value(a.value) for a in resource.resource.attributes}
                        for scope in resource.scope_spans:
                            for span in scope.spans:
                                out.write(json.dumps({
                                    "kind": "span", "name": span.name, "trace": span.trace_id.hex(), "id": span.span_id.hex(),
                                    "parent": span.parent_span_id.hex(), "status": span.status.code,
                                    "attributes": {a.key: value(a.value) for a in span.attributes},
                                    "links": [link.span_id.hex() for link in span.links], "resource": service,
                                }) + "\n")
                                said.append("got " + span.name + (" error" if span.status.code == 2 else ""))
                else:
                    request = ExportLogsServiceRequest.FromString(body)
                    reply = ExportLogsServiceResponse()
                    for resource in request.resource_logs:
                        for scope in resource.scope_logs:
                            for record in scope.log_records:
                                out.write(json.dumps({
                                    "kind": "log", "body": str(value(record.body)), "trace": record.trace_id.hex(),
                                    "attributes": {a.key: str(value(a.value)) for a in record.attributes},
                                }) + "\n")
                                said.append("log")
                out.flush()
                data = reply.SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                for line in said:
                    print(line, flush=True)
            def log_message(self, *arguments):
                pass
        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        print("listening on 127.0.0.1:%d" % server.server_address[1], flush=True)
        server.serve_forever()
        """#

    struct Span: Decodable {
        let name: String, trace: String, id: String, parent: String, status: Int, links: [String]
        let attributes: [String: AnyValue]
        let resource: [String: AnyValue]
    }

    /// A span attribute's value, as its text.
    struct AnyValue: Decodable, CustomStringConvertible {
        let description: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) { description = text }
            else if let number = try? container.decode(Int.self) { description = String(number) }
            else if let flag = try? container.decode(Bool.self) { description = String(flag) }
            else { description = "" }
        }
    }

    @Test("An imgproxy environment sends every stage's span, continues the caller's trace and passes it on, marks failures, exports logs, and leaks no secret")
    func tracesReachTheCollector() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-otel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("received.jsonl")
        let names = ["got GET /**", "got imagery.image", "got imagery.process", "got imagery.decode", "got imagery.fetch", "got imagery.encode", "got imagery.fetch error", "log"]
        let collector = try ServerProcess.start(executable: "/usr/bin/env", ["python3", "-c", Self.collector, file.path], readyMarker: "listening", watching: names)
        defer { collector.kill() }
        let collectorPort = try await collector.port()

        let parents = Locked<[String]>([])
        let origin = try TestHTTPServer { request in
            if let parent = request.headers["traceparent"] { parents.withLock { $0.append(parent) } }
            return request.path.hasPrefix("/rocket.jpg") ? .ok(Fixtures.rocket) : .status(404)
        }
        defer { origin.stop() }

        let (key, salt, bearer) = ("6b6579736563726574", "73616c7473656372", "bearer-secret-7f3a")
        let presigned = "presigned-signature-91c2"
        let server = try ServerProcess.start([], environment: [
            "IMGPROXY_BIND": "127.0.0.1:0", "IMGPROXY_KEY": key, "IMGPROXY_SALT": salt, "IMGPROXY_SECRET": bearer,
            "IMAGERY_ALLOW_LOOPBACK_SOURCES": "true", "IMGPROXY_LOG_FORMAT": "json", "IMGPROXY_LOG_LEVEL": "debug",
            "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "IMGPROXY_OPEN_TELEMETRY_ENABLE_LOGS": "true",
            "IMGPROXY_OPEN_TELEMETRY_PROPAGATE_EXTERNAL": "true",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collectorPort)",
            "OTEL_SERVICE_NAME": "imagery-under-test", "OTEL_BSP_SCHEDULE_DELAY": "50",
        ])
        defer { server.kill() }
        let port = try await server.port()

        let signer = try ImgproxySigner(keysHex: key, saltsHex: salt)
        func signed(_ source: String) -> String {
            let unsigned = "/rs:fit:200:200/plain/http://127.0.0.1:\(origin.port)\(source)"
            return "/" + signer.sign(unsigned) + unsigned
        }
        let (trace, caller) = ("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7")
        let served = try await ServerHarness.get(port: port, signed("/rocket.jpg%3FX-Amz-Signature%3D\(presigned)"), headers: [
            ("Authorization", "Bearer \(bearer)"), ("traceparent", "00-\(trace)-\(caller)-01"), ("X-Request-ID", "otel-test-1"),
        ])
        #expect(served.status == 200 && served.header("x-request-id") == "otel-test-1")
        let missing = try await ServerHarness.get(port: port, signed("/missing.jpg"), headers: [("Authorization", "Bearer \(bearer)")])
        #expect(missing.status == 404)

        for name in names { #expect(await collector.line(containing: name), "the collector never got \(name)") }
        let received = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        let spans = try received.filter { $0.contains(#""kind": "span""#) }.map { try JSONDecoder().decode(Span.self, from: Data($0.utf8)) }

        // The request continues the caller's trace; every stage is in it, under the request.
        let request = try #require(spans.first { $0.name == "GET /**" && $0.trace == trace })
        #expect(request.parent == caller)
        #expect(request.attributes["imagery.request_id"]?.description == "otel-test-1")
        #expect(request.resource["service.name"]?.description == "imagery-under-test")
        let inTrace = Dictionary(spans.filter { $0.trace == trace }.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(request.attributes["imagery.cache.tier"]?.description == "none")
        for name in ["imagery.image", "imagery.encode"] { #expect(inTrace[name]?.parent == request.id, "\(name)") }
        #expect(inTrace["imagery.process"]?.parent == inTrace["imagery.image"]?.id)
        #expect(inTrace["imagery.fetch"]?.attributes["server.address"]?.description == "127.0.0.1")
        // …and goes on to the origin, from the download's span.
        #expect(parents.withLock { $0 }.contains { $0.hasPrefix("00-\(trace)-\(inTrace["imagery.fetch"]?.id ?? "none")") })

        // The missing source's request and download fail, with the failure's kind.
        let failed = try #require(spans.first { $0.name == "GET /**" && $0.trace != trace })
        #expect(failed.status == 2 && failed.attributes["error.type"]?.description == "404")
        #expect(spans.contains { $0.trace == failed.trace && $0.name == "imagery.fetch" && $0.status == 2 && $0.attributes["error.type"]?.description == "not_found" })

        // Log lines: exported, and written as JSON with the request's id and trace.
        #expect(received.contains { $0.contains(#""kind": "log""#) })
        let lines = server.writtenLines
        let requestLine = try #require(lines.first { $0.contains("otel-test-1") && $0.contains(#""msg":"request""#) })
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(requestLine.utf8)) as? [String: Any])
        #expect(fields["hb.request.id"] as? String == "otel-test-1" && fields["trace_id"] as? String == trace)

        // No secret in any span, log record or line.
        let everything = received.joined(separator: "\n") + lines.joined(separator: "\n")
        for secret in [key, salt, bearer, presigned, "6b6579", "keysecret"] {
            #expect(!everything.contains(secret), "\(secret) leaked: \(everything.split(separator: "\n").filter { $0.contains(secret) })")
        }
    }

    @Test("A collector that is not there fails no request: answers are served, and the exporter says so")
    func collectorGone() async throws {
        // Bound and not listening: every connection to it is refused.
        let held = try LoopbackSocket.bind(reusesAddress: false)
        defer { close(held.descriptor) }
        let origin = try TestHTTPServer { _ in .ok(Fixtures.rocket) }
        defer { origin.stop() }
        let server = try ServerProcess.start([], watching: ["imagery.telemetry"], environment: [
            "IMGPROXY_BIND": "127.0.0.1:0", "IMAGERY_ALLOW_LOOPBACK_SOURCES": "true",
            "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(held.port)", "OTEL_BSP_SCHEDULE_DELAY": "20",
            "OTEL_BSP_EXPORT_TIMEOUT": "2000", "OTEL_BSP_MAX_QUEUE_SIZE": "64",
        ])
        defer { server.kill() }
        let port = try await server.port()
        for width in 1...20 {
            let reply = try await ServerHarness.get(port: port, "/unsafe/w:\(width * 10)/plain/http://127.0.0.1:\(origin.port)/rocket.jpg")
            #expect(reply.status == 200)
        }
        #expect(await server.line(containing: "imagery.telemetry"), "the exporter never said its collector is gone")
    }
}

/// Whether python3 can decode OTLP (PyPI's opentelemetry-proto), for the test collector.
enum OTLPCollector {
    static let isAvailable: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import opentelemetry.proto.collector.trace.v1.trace_service_pb2"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()
}
