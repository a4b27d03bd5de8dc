import Foundation
@testable import ImageryServer
import ImageryTestSupport
import Logging
import Testing

/// `--prometheus-namespace` (imgproxy's `IMGPROXY_PROMETHEUS_NAMESPACE`), in the real
/// executable, whose pipeline counters reach `/metrics` through the swift-metrics factory it
/// bootstraps.
@Suite("imagery-server /metrics under a namespace", .timeLimit(.minutes(10)))
struct MetricsNamespaceTests {
    @Test(
        "IMGPROXY_PROMETHEUS_NAMESPACE=edge: every series, the server's and the pipeline's, is named edge_…",
        .tags(.integration), .offUnderSanitizer,
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func everySeriesIsNamespaced() async throws {
        let server = try ServerProcess.start(["--port", "0"], environment: ["IMGPROXY_PROMETHEUS_NAMESPACE": "edge"])
        defer { server.kill() }
        let port = try await server.port()
        #expect(try await ServerHarness.get(port: port, "/health").status == 200)
        let metrics = try await ServerHarness.get(port: port, "/metrics")
        #expect(metrics.status == 200)
        let samples = metrics.text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(!samples.isEmpty)
        for sample in samples {
            #expect(sample.hasPrefix("edge_"), "\(sample)")
        }
        // One of the server's series and one of the pipeline's.
        #expect(samples.contains { $0.hasPrefix("edge_imagery_http_requests_total{status=\"200\"}") }, "\(metrics.text)")
        #expect(samples.contains { $0.hasPrefix("edge_imagery_downloads_total") }, "\(metrics.text)")
        // The memory budget, the server's, and what the pipeline has charged to it.
        #expect(samples.contains { $0.hasPrefix("edge_imagery_memory_budget_bytes ") }, "\(metrics.text)")
        #expect(samples.contains { $0.hasPrefix("edge_imagery_memory_charged_bytes{kind=\"work\"} ") }, "\(metrics.text)")
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
    }
}

/// `--prometheus-bind` (imgproxy's `IMGPROXY_PROMETHEUS_BIND`): `/metrics` on a listener of its
/// own, and no longer beside the images.
@Suite("imagery-server --prometheus-bind", .timeLimit(.minutes(10)))
struct PrometheusBindTests {
    @Test("IMGPROXY_PROMETHEUS_BIND=127.0.0.1:0: /metrics answers on its own port, counting the server's requests, and not on the server's")
    func metricsOnTheirOwnPort() async throws {
        let read = try await ServerSettingsTests.load(["--host", "127.0.0.1", "--port", "0"], environment: ["IMGPROXY_PROMETHEUS_BIND": "127.0.0.1:0"])
        #expect(read.configuration.prometheusBind == HostAndPort(host: "127.0.0.1", port: 0))
        let server = try ServerApplication(configuration: read.configuration, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let (ports, continuation) = AsyncStream<(String, Int)>.makeStream()
        let task = Task {
            defer { continuation.finish() }   // a listener that fails ends the wait below
            try await server.run(handlesSignals: false, onRunning: { continuation.yield(("server", $0)) }, onMetricsRunning: { continuation.yield(("metrics", $0)) })
        }
        defer { task.cancel() }
        var bound: [String: Int] = [:]
        for await (name, port) in ports {
            bound[name] = port
            if bound.count == 2 { break }
        }
        let serverPort = try #require(bound["server"]), metricsPort = try #require(bound["metrics"])
        #expect(serverPort != metricsPort)

        #expect(try await ServerHarness.get(port: serverPort, "/health").status == 200)
        let beside = try await ServerHarness.get(port: serverPort, "/metrics")
        #expect(beside.status != 200 && !beside.text.contains("imagery_http_requests_total"), "\(beside.status) \(beside.text.prefix(200))")
        let metrics = try await ServerHarness.get(port: metricsPort, "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.text.contains("imagery_http_requests_total{status=\"200\"}"), "\(metrics.text.prefix(400))")
        #expect(try await ServerHarness.get(port: metricsPort, "/health").status == 404)
    }

    @Test("--prometheus-bind refuses the server's own address and anything but host:port")
    func refusals() async throws {
        let same = try #require(await ServerSettingsTests.refusal(["--host", "127.0.0.1", "--port", "8080"], environment: ["IMGPROXY_PROMETHEUS_BIND": "127.0.0.1:8080"]))
        #expect(same.setting == "--prometheus-bind" && same.reason.contains("own address"), "\(same)")
        let malformed = try #require(await ServerSettingsTests.refusal(environment: ["IMGPROXY_PROMETHEUS_BIND": "metrics"]))
        #expect(malformed.setting == "IMGPROXY_PROMETHEUS_BIND", "\(malformed)")
        #expect(HostAndPort(parsing: ":9464") == HostAndPort(host: "0.0.0.0", port: 9464))
        #expect(HostAndPort(parsing: "[::1]:9464") == HostAndPort(host: "::1", port: 9464))
        #expect(HostAndPort(parsing: "127.0.0.1:65536") == nil)
    }
}
