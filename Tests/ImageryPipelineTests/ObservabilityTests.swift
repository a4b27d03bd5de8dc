import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Metrics
import MetricsTestKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct ObservabilityTests {
    /// The metrics system can be bootstrapped once per process; this suite owns it, and its
    /// pipelines use a prefix of their own so other suites' counters never mix in.
    static let metrics: TestMetrics = {
        let metrics = TestMetrics()
        MetricsSystem.bootstrap(metrics)
        return metrics
    }()

    @Test("Counters reach swift-metrics and pipeline.statistics alike")
    func countersAndStatistics() async throws {
        let metrics = Self.metrics
        let pipeline = ImagePipeline(configuration: .standard.with { $0.metricsPrefix = "observability" })
        let good = ImageRequest(source: .custom(id: "o1") { Fixtures.gif }, resize: .width(40))
        let bad = ImageRequest(source: .custom(id: "o2") { Array("junk".utf8) })

        _ = try await pipeline.image(for: good)
        _ = try await pipeline.image(for: good)
        _ = try? await pipeline.image(for: bad)

        let stats = pipeline.statistics
        #expect(stats.requests == 3)
        #expect(stats.memoryHits == 1)
        #expect(stats.downloads == 2)
        #expect(stats.bytesDownloaded == Fixtures.gif.count + 4)
        #expect(stats.decodes == 1)
        #expect(stats.failures == ["decoding": 1])
        #expect(try metrics.expectCounter("observability_requests_total").totalValue == 3)
        #expect(try metrics.expectCounter("observability_memory_hits_total").totalValue == 1)
        #expect(try metrics.expectCounter("observability_downloads_total").totalValue == 2)
        #expect(try metrics.expectCounter("observability_failures_total", [("kind", "decoding")]).totalValue == 1)
    }

    @Test("A server that stops sending times out with a typed error")
    func timeout() async throws {
        let server = try TestHTTPServer { _ in .stall(Fixtures.meadow) }
        defer { server.stop() }
        var configuration = DataLoader.Configuration()
        configuration.timeout = .milliseconds(500)
        let pipeline = Fixtures.pipeline(loader: DataLoader(configuration: configuration))
        let url = server.url("/slow.jpg")

        await #expect(throws: ImagePipelineError.loadingFailed(.timedOut(source: url.absoluteString))) {
            try await pipeline.image(for: ImageRequest(url: url))
        }
        // (Whether the server saw the request depends on how loaded the machine is, so the closed
        // connection is checked by the cancellation tests, not here.)
        #expect(pipeline.statistics.failures["timed_out"] == 1)
    }
}
