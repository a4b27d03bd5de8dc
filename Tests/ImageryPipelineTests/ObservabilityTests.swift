import Foundation
@testable import Imagery
import ImageryCodecs
@testable import ImageryDiskCache
import ImageryTestSupport
import Logging
import Metrics
import MetricsTestKit
import Testing

@Suite(.timeLimit(.minutes(10)))
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

        _ = try await pipeline.response(for: good)
        _ = try await pipeline.response(for: good)
        _ = try? await pipeline.response(for: bad)

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

    @Test("A failed request is logged at debug only: a library stays quiet unless asked")
    func failuresLogAtDebug() async throws {
        let records = Locked<[(Logger.Level, String)]>([])
        var logger = Logger(label: "quiet") { _ in RecordingLogHandler(records: records) }
        logger.logLevel = .trace
        let pipeline = ImagePipeline(configuration: .standard.with { $0.logger = logger })

        _ = try? await pipeline.response(for: ImageRequest(source: .custom(id: "junk") { Array("junk".utf8) }))
        _ = try? await pipeline.response(for: ImageRequest(source: .file("/nonexistent/imagery-test.jpg")))

        let logged = records.withLock { $0 }
        #expect(logged.contains { $0.1 == "decode failed" && $0.0 == .debug })
        #expect(logged.contains { $0.1 == "download failed" && $0.0 == .debug })
        #expect(logged.allSatisfy { $0.0 <= .debug }, "logged above debug: \(logged)")
    }

    @Test("Disk writes and hits reach pipeline.statistics and swift-metrics; the tier's own counts pass through")
    func diskCounters() async throws {
        let metrics = Self.metrics
        let disk = MemoryDataCache()
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.metricsPrefix = "observability_disk"
            $0.dataCache = disk
            $0.dataCachePolicy = .originalData
            $0.imageCache = nil
        })
        let request = ImageRequest(source: .custom(id: "d1") { Fixtures.gif })
        _ = try await pipeline.response(for: request)
        await pipeline.waitUntilIdle()
        _ = try await pipeline.response(for: request)

        let stats = pipeline.statistics
        #expect(stats.diskWrites == 1)
        #expect(stats.diskHits == 1)
        #expect(stats.diskEvictions == 7)   // what the cache reports, passed through
        #expect(try metrics.expectCounter("observability_disk_disk_writes_total").totalValue == 1)
        #expect(try metrics.expectCounter("observability_disk_disk_hits_total").totalValue == 1)
    }

    @Test("Each cache counts its own evictions, in its statistics and in swift-metrics")
    func evictions() async throws {
        let metrics = Self.metrics
        // Given a memory cache of one entry, and two images through it
        let cache = ImageCache(countLimit: 1, metricsPrefix: "observability_evict")
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.imageCache = cache
            $0.metricsPrefix = "observability_evict"
        })
        _ = try await pipeline.response(for: ImageRequest(source: .custom(id: "evict-1") { Fixtures.gif }))
        _ = try await pipeline.response(for: ImageRequest(source: .custom(id: "evict-2") { Fixtures.gif }))
        // Then the first was evicted, and the cache said so
        #expect(cache.evictionCount == 1)
        #expect(pipeline.statistics.memoryEvictions == 1)
        #expect(try metrics.expectCounter("observability_evict_memory_evictions_total").totalValue == 1)

        // Given a disk cache of 1,000 bytes, and three entries of 600
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-evictions-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = DiskCache.Configuration()
        configuration.sizeLimit = 1_000
        configuration.metricsPrefix = "observability_evict"
        let disk = try DiskCache(directory: directory.path, configuration: configuration)
        for index in 0..<3 {
            await disk.storeData([UInt8](repeating: UInt8(index), count: 600), for: "k\(index)")
            await disk.trim()
        }
        // Then it evicted to fit, and its counter says how many
        let evicted = disk.statistics.diskEvictions
        #expect(evicted >= 2)
        #expect(try metrics.expectCounter("observability_evict_disk_evictions_total").totalValue == Int64(evicted))
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
            try await pipeline.response(for: ImageRequest(url: url))
        }
        // (Whether the server saw the request depends on how loaded the machine is, so the closed
        // connection is checked by the cancellation tests, not here.)
        #expect(pipeline.statistics.failures["timed_out"] == 1)
    }
}

/// Keeps every log record's level and message.
struct RecordingLogHandler: LogHandler {
    let records: Locked<[(Logger.Level, String)]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        records.withLock { $0.append((event.level, event.message.description)) }
    }
}

/// A ``DataCaching`` in memory that reports made-up evictions, to see them reach the pipeline.
final class MemoryDataCache: DataCaching {
    private let entries = Locked<[String: [UInt8]]>([:])

    func cachedData(for key: String) async -> [UInt8]? { entries.withLock { $0[key] } }
    func storeData(_ data: [UInt8], for key: String) async { entries.withLock { $0[key] = data } }
    func removeData(for key: String) async { entries.withLock { $0[key] = nil } }
    func removeAll() async { entries.withLock { $0 = [:] } }

    var statistics: ImagePipeline.Statistics {
        var statistics = ImagePipeline.Statistics()
        statistics.diskEvictions = 7
        return statistics
    }
}
