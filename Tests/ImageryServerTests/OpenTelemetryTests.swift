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
    "OpenTelemetry over OTLP/HTTP", .tags(.integration), .offUnderSanitizer, .timeLimit(.minutes(10)),
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
        from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest, ExportMetricsServiceResponse
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
                elif self.path == "/v1/metrics":
                    request = ExportMetricsServiceRequest.FromString(body)
                    reply = ExportMetricsServiceResponse()
                    for resource in request.resource_metrics:
                        for scope in resource.scope_metrics:
                            for metric in scope.metrics:
                                kind = metric.WhichOneof("data")
                                for point in getattr(metric, kind).data_points:
                                    number = point.count if kind == "histogram" else getattr(point, point.WhichOneof("value"))
                                    out.write(json.dumps({
                                        "kind": "metric", "name": metric.name, "type": kind, "value": number,
                                        "attributes": {a.key: value(a.value) for a in point.attributes},
                                    }) + "\n")
                                    said.append("metric %s %d." % (metric.name, number))
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
        if len(sys.argv) > 2:
            # https, and only for a client with a certificate the test's CA signed.
            import ssl
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[2], sys.argv[3])
            context.load_verify_locations(sys.argv[4])
            context.verify_mode = ssl.CERT_REQUIRED
            server.socket = context.wrap_socket(server.socket, server_side=True)
        print("listening on 127.0.0.1:%d" % server.server_address[1], flush=True)
        server.serve_forever()
        """#

    struct Span: Decodable {
        let name: String, trace: String, id: String, parent: String, status: Int, links: [String]
        let attributes: [String: AnyValue]
        let resource: [String: AnyValue]
    }

    struct Metric: Decodable {
        let name: String, type: String, value: Double
        let attributes: [String: AnyValue]
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
        let names = [
            "got GET /**", "got imagery.image", "got imagery.process", "got imagery.decode", "got imagery.fetch", "got imagery.encode", "got imagery.fetch error", "log",
            // Exported after both requests: the requests' histogram counts two (then three, with
            // /metrics, which is asked for only once this is seen).
            "metric imagery_http_requests_total", "metric imagery_downloads_total", "metric imagery_http_request_duration_seconds 2.",
        ]
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
            "IMGPROXY_OPEN_TELEMETRY_PROPAGATE_EXTERNAL": "true", "IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS": "true",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:\(collectorPort)",
            "OTEL_SERVICE_NAME": "imagery-under-test", "OTEL_BSP_SCHEDULE_DELAY": "50", "OTEL_METRIC_EXPORT_INTERVAL": "100",
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

        // Metrics: the server's and the pipeline's series, from the counters /metrics shows.
        let metrics = try received.filter { $0.contains(#""kind": "metric""#) }.map { try JSONDecoder().decode(Metric.self, from: Data($0.utf8)) }
        let answered = metrics.filter { $0.name == "imagery_http_requests_total" && $0.attributes["status"]?.description == "200" }
        #expect(answered.contains { $0.type == "sum" && $0.value >= 1 }, "\(metrics.map(\.name))")
        #expect(metrics.contains { $0.name == "imagery_downloads_total" && $0.value >= 2 })
        #expect(metrics.contains { $0.name == "imagery_http_request_duration_seconds" && $0.type == "histogram" && $0.value >= 2 })
        let exposition = try await ServerHarness.get(port: port, "/metrics", headers: [("Authorization", "Bearer \(bearer)")])
        #expect(exposition.text.contains("# HELP imagery_http_requests_total HTTP requests by status."), "\(exposition.text.prefix(600))")
        #expect(exposition.text.contains("imagery_http_requests_total{status=\"200\"} 1"), "\(exposition.text.prefix(600))")

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

    @Test(
        "imgproxy's PEM settings: the collector's CA and this client's certificate and key, as text, reach a collector over mutual TLS, and leave no key on disk",
        .enabled(if: CIRun.runs(needing: TestCertificates.isAvailable), "needs the openssl command for the test's certificates (.ci/run installs it)")
    )
    func mutualTLS() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-otel-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestCertificates.make(in: directory)
        func pem(_ name: String) throws -> String { try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8) }
        let file = directory.appendingPathComponent("received.jsonl")
        let collector = try ServerProcess.start(
            executable: "/usr/bin/env",
            ["python3", "-c", Self.collector, file.path] + ["server.pem", "server.key", "ca.pem"].map { directory.appendingPathComponent($0).path },
            readyMarker: "listening", watching: ["got GET /**"]
        )
        defer { collector.kill() }
        let collectorPort = try await collector.port()
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])

        let server = try ServerProcess.start([], environment: [
            "IMGPROXY_BIND": "127.0.0.1:0", "IMGPROXY_OPEN_TELEMETRY_ENABLE": "true",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT": "https://127.0.0.1:\(collectorPort)",
            "OTEL_BSP_SCHEDULE_DELAY": "50", "IMGPROXY_OPEN_TELEMETRY_SERVER_CERT": try pem("ca.pem"),
            "IMGPROXY_OPEN_TELEMETRY_CLIENT_CERT": try pem("client.pem"), "IMGPROXY_OPEN_TELEMETRY_CLIENT_KEY": try pem("client.key"),
        ])
        defer { server.kill() }
        let port = try await server.port()
        #expect(try await ServerHarness.get(port: port, "/unsafe/w:10/plain/local:///missing.png").status >= 400)
        #expect(await collector.line(containing: "got GET /**"), "the collector never got the request's span over TLS")

        // Only the CA is left on disk while the server runs, in a directory of its own user's.
        let made = Set((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? []).subtracting(before).filter { $0.hasPrefix("imagery-pem-") }
        let written = try #require(made.first, "no directory for the PEM files")
        let path = NSTemporaryDirectory() + "/" + written
        #expect(try FileManager.default.contentsOfDirectory(atPath: path) == ["ca.pem"])
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o700)
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
        #expect(!FileManager.default.fileExists(atPath: path), "the CA's directory outlived the server")
    }

    @Test("A collector that is not there fails no request: answers are served, lost spans are counted in /metrics and said once, memory stays bounded")
    func collectorGone() async throws {
        // Bound and not listening: every connection to it is refused.
        let held = try LoopbackSocket.bind(reusesAddress: false)
        defer { close(held.descriptor) }
        let origin = try TestHTTPServer { _ in .ok(Fixtures.rocket) }
        defer { origin.stop() }
        let server = try ServerProcess.start([], watching: ["spans are being lost"], environment: [
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
        // Twenty cold requests are 140 spans for a queue of 64: the full queue drops some, and
        // every batch tried fails, so every span is lost either way.
        #expect(await server.line(containing: "spans are being lost"), "the exporter never said its collector is gone")
        let metrics = try await ServerHarness.get(port: port, "/metrics").text
        let lost = metrics.split(separator: "\n").first { $0.hasPrefix("imagery_telemetry_dropped_spans_total ") }
        let count = try #require(lost.flatMap { Double($0.split(separator: " ")[1]) }, "\(metrics)")
        #expect(count > 0)
        // Bounded by the queue: spans are dropped, not kept for a collector that may come back.
        let peak = try AnimationMemoryTests.peakResidentBytes(of: server.pid)
        #expect(peak < 300 << 20, "peak RSS \(peak >> 20) MB")
        // Whatever is still queued is tried as the server stops, and fails too: counted, not said again.
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
        let said = server.writtenLines.filter { $0.contains("spans are being lost") || $0.contains("Failed to export batch") || $0.contains("queue was full") }
        #expect(said.count == 1, "\(said)")
    }
}

/// A CA, a server certificate for 127.0.0.1 and a client certificate it signed, made by the
/// openssl command for one test, valid for a day.
enum TestCertificates {
    static let isAvailable = ChildProcess.onPath("openssl") != nil

    static func make(in directory: URL) async throws {
        let script = """
            set -e
            cd '\(directory.path)'
            openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=imagery-test-ca -keyout ca.key -out ca.pem
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=127.0.0.1 -keyout server.key -out server.csr
            printf 'subjectAltName=IP:127.0.0.1\\n' > server.ext
            openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile server.ext -out server.pem
            openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=imagery-client -keyout client.key -out client.csr
            printf 'extendedKeyUsage=clientAuth\\n' > client.ext
            openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 -extfile client.ext -out client.pem
            """
        // Waited for on a thread of its own, never on the cooperative pool the servers answer on.
        let outcome = try await ChildProcess.run("/bin/sh", ["-c", script])
        guard outcome.exitCode == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}

/// Whether python3 can decode OTLP (PyPI's opentelemetry-proto), for the test collector.
enum OTLPCollector {
    static let isAvailable = ChildProcess.pythonImports("opentelemetry.proto.collector.trace.v1.trace_service_pb2")
}
