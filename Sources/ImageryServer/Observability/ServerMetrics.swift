import HTTPTypes
import Metrics
import Prometheus
import Imagery

/// The server's own series (requests by status, latency, in-flight and queued requests,
/// response tiers, result storage, encodes), made once through swift-metrics: into the
/// Prometheus registry `/metrics` renders, and, with OTLP metrics on
/// (`--open-telemetry-enable-metrics`), into swift-otel's exporter too, from the same calls. The
/// pipeline's counters (`imagery_downloads_total`, `imagery_decodes_total`, hits, coalesced …)
/// reach both the same way when the process bootstraps swift-metrics with
/// ``metricsFactory(registry:namespace:exporting:)``, as the `imagery-server` executable does.
package final class ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    private let factory: any MetricsFactory
    private let latency: Metrics.Timer
    private let inFlight: Meter
    private let queued: Meter
    private let hits: [Tier: Metrics.Counter]
    private let misses: Metrics.Counter
    private let writes: [Tier: Metrics.Counter]
    private let storageFailures: [StorageOperation: Metrics.Counter]
    private let storageSkips: [StorageOperation: Metrics.Counter]
    private let encodes: Recorder
    private let memoryBudget: Meter
    private let memoryReserved: Meter
    private let unavailable: [UnavailableReason: Metrics.Counter]
    /// One counter per status, made on first use (making one takes the registry's lock; this
    /// map is read far more often).
    private let byStatus = Locked<[Int: Metrics.Counter]>([:])   // not Mutex: TSan cannot see its futex

    /// `namespace` (`--prometheus-namespace`) is put before every Prometheus series' name, with
    /// `_`; `exporting`, swift-otel's factory, gets every value too.
    init(registry: PrometheusCollectorRegistry, namespace: String = "", exporting exporter: (any MetricsFactory)? = nil) {
        self.registry = registry
        let factory = Self.metricsFactory(registry: registry, namespace: namespace, exporting: exporter)
        self.factory = factory
        latency = Metrics.Timer(label: "imagery_http_request_duration_seconds", factory: factory)
        inFlight = Meter(label: "imagery_http_requests_in_flight", factory: factory)
        queued = Meter(label: "imagery_image_requests_queued", factory: factory)
        hits = Dictionary(uniqueKeysWithValues: Tier.allCases.map {
            ($0, Metrics.Counter(label: "imagery_response_hits_total", dimensions: [("tier", $0.rawValue)], factory: factory))
        })
        misses = Metrics.Counter(label: "imagery_response_misses_total", factory: factory)
        writes = Dictionary(uniqueKeysWithValues: [Tier.disk, .bucket].map {
            ($0, Metrics.Counter(label: "imagery_response_writes_total", dimensions: [("tier", $0.rawValue)], factory: factory))
        })
        storageFailures = Dictionary(uniqueKeysWithValues: StorageOperation.allCases.map {
            ($0, Metrics.Counter(label: "imagery_result_storage_errors_total", dimensions: [("operation", $0.rawValue)], factory: factory))
        })
        storageSkips = Dictionary(uniqueKeysWithValues: StorageOperation.allCases.map {
            ($0, Metrics.Counter(label: "imagery_result_storage_skipped_total", dimensions: [("operation", $0.rawValue)], factory: factory))
        })
        encodes = Recorder(label: "imagery_image_encodes", factory: factory)
        memoryBudget = Meter(label: "imagery_memory_budget_bytes", factory: factory)
        memoryReserved = Meter(label: "imagery_memory_reserved_bytes", factory: factory)
        unavailable = Dictionary(uniqueKeysWithValues: UnavailableReason.allCases.map {
            ($0, Metrics.Counter(label: "imagery_unavailable_total", dimensions: [("reason", $0.rawValue)], factory: factory))
        })
    }

    /// How each of the server's series is shown in `/metrics`.
    static let descriptions: [String: PrometheusSeriesFactory.Description] = [
        "imagery_http_request_duration_seconds": .init(help: "Time from a request's head to its response, image or error.", durationBuckets: PrometheusSeriesFactory.durationBuckets),
        "imagery_http_requests_in_flight": .init(help: "HTTP requests being answered."),
        "imagery_image_requests_queued": .init(help: "Image requests admitted and not yet answered (running or waiting); --max-queue bounds it."),
        "imagery_response_hits_total": .init(help: "Image requests answered from a response tier, by tier."),
        "imagery_response_misses_total": .init(help: "Image requests that passed every check and found no stored response (rendered, or refused by the queue)."),
        "imagery_response_writes_total": .init(help: "Responses written to a shared tier, disk or bucket (begun; a graceful shutdown waits for them)."),
        "imagery_result_storage_errors_total": .init(help: "Result-storage lookups and writes that failed or timed out (each request was processed instead)."),
        "imagery_result_storage_skipped_total": .init(help: "Result-storage lookups and writes not tried because the store kept failing (its circuit breaker was open)."),
        "imagery_image_encodes": .init(help: "Encodes each still image took: 1 at a fixed quality, more with autoquality (aq) or format:best.", valueBuckets: [1, 2, 3, 4, 6, 8, 12, 16, 24]),
        "imagery_http_requests_total": .init(help: "HTTP requests by status."),
        "imagery_memory_budget_bytes": .init(help: "The memory the server may use (--max-memory, or its default from the cgroup's limit)."),
        "imagery_memory_reserved_bytes": .init(help: "The part of the budget set aside at start: the process's own memory and the memory caches."),
        "imagery_memory_charged_bytes": .init(help: "Bytes charged to the budget now, at 4 a pixel: work (decodes, processing runs and their waiting inputs, encoders), and delivered images waiting for their encoder."),
        "imagery_work_waiting": .init(help: "Work waiting for a slot or for room in the memory budget, by stage (decode, process, encode)."),
        "imagery_unavailable_total": .init(help: "Image requests answered 503 (or 429), by reason: queue (--max-queue or --requests-queue-size full), deadline (--request-timeout passed, waiting for room included)."),
        TelemetryDiagnostics.droppedSpans: .init(help: "Spans OpenTelemetry lost: dropped from its full queue, or in a batch the collector did not take."),
    ]

    /// Why a request was answered 503.
    enum UnavailableReason: String, CaseIterable { case queue, deadline }

    /// The memory budget and what was set aside from it at start.
    func memory(budget: Int, reserved: Int) {
        memoryBudget.set(Double(budget))
        memoryReserved.set(Double(reserved))
    }

    func unavailable(_ reason: UnavailableReason) { unavailable[reason]?.increment() }

    /// A response tier the server keeps its encoded answers in.
    enum Tier: String, CaseIterable { case memory, disk, bucket }

    /// What result storage was asked to do.
    enum StorageOperation: String, CaseIterable { case lookup, write }

    func responseHit(_ tier: Tier) { hits[tier]?.increment() }

    func responseMiss() { misses.increment() }

    func responseWriteBegun(_ tier: Tier) { writes[tier]?.increment() }

    func resultStorageFailed(_ operation: StorageOperation) { storageFailures[operation]?.increment() }

    func resultStorageSkipped(_ operation: StorageOperation) { storageSkips[operation]?.increment() }

    func imageEncoded(encodes count: Int) { encodes.record(count) }

    func requestStarted() { inFlight.increment() }

    func requestFinished(status: HTTPResponse.Status, after duration: Duration) {
        inFlight.decrement()
        latency.recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        let code = status.code
        let counter = byStatus.withLock { counters in
            if let counter = counters[code] { return counter }
            let counter = Metrics.Counter(label: "imagery_http_requests_total", dimensions: [("status", String(code))], factory: factory)
            counters[code] = counter
            return counter
        }
        counter.increment()
    }

    /// `name` under `namespace` (`--prometheus-namespace`, imgproxy's
    /// `IMGPROXY_PROMETHEUS_NAMESPACE`): `namespace_name`, or `name` when it is empty. The
    /// server's series and the pipeline's (through ``metricsFactory(registry:namespace:)``) both
    /// take it here.
    static func namespaced(_ name: String, by namespace: String) -> String {
        namespace.isEmpty ? name : namespace + "_" + name
    }

    /// The swift-metrics factory the `imagery-server` executable bootstraps, and the server's
    /// own series are made with: into `registry`, under `namespace`, and into `exporter` too
    /// when there is one.
    package static func metricsFactory(
        registry: PrometheusCollectorRegistry, namespace: String, exporting exporter: (any MetricsFactory)? = nil
    ) -> any MetricsFactory {
        let prometheus = PrometheusSeriesFactory(registry: registry, namespace: namespace, descriptions: descriptions)
        guard let exporter else { return prometheus }
        return MultiplexMetricsHandler(factories: [prometheus, exporter])
    }

    func queuedChanged(by change: Int) {
        if change > 0 { queued.increment(by: Double(change)) } else { queued.decrement(by: Double(-change)) }
    }

    /// The registry in Prometheus' text format.
    func render() -> [UInt8] { registry.emitToBuffer() }
}
