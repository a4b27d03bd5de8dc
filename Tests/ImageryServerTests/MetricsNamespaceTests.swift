import Foundation
import ImageryTestSupport
import Testing

/// `--prometheus-namespace` (imgproxy's `IMGPROXY_PROMETHEUS_NAMESPACE`), in the real
/// executable, whose pipeline counters reach `/metrics` through the swift-metrics factory it
/// bootstraps.
@Suite("imagery-server /metrics under a namespace", .timeLimit(.minutes(3)))
struct MetricsNamespaceTests {
    @Test(
        "IMGPROXY_PROMETHEUS_NAMESPACE=edge: every series, the server's and the pipeline's, is named edge_…",
        .tags(.integration), .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
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
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
    }
}
