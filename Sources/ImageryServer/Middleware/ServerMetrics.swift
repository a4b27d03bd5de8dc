import HTTPTypes
import Prometheus
import Imagery

/// The server's own Prometheus series (requests by status, latency, in-flight and queued
/// requests), in the registry `/metrics` renders. The pipeline's counters
/// (`imagery_downloads_total`, `imagery_decodes_total`, hits, coalesced …) reach the same
/// registry through swift-metrics when the process bootstraps `PrometheusMetricsFactory` with it,
/// as the `imagery-server` executable does.
package final class ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    private let latency: DurationHistogram
    private let inFlight: Gauge
    private let queued: Gauge
    private let hits: [Tier: Counter]
    private let misses: Counter
    private let writes: [Tier: Counter]
    private let storageFailures: [StorageOperation: Counter]
    private let storageSkips: [StorageOperation: Counter]
    private let encodes: ValueHistogram
    /// One counter per status, made on first use (the registry returns the same one for a
    /// name and labels, but making it takes its lock; this map is read far more often).
    private let byStatus = Locked<[Int: Counter]>([:])   // not Mutex: TSan cannot see its futex
    private let namespace: String

    /// `namespace` (`--prometheus-namespace`) is put before every series' name, with `_`.
    init(registry: PrometheusCollectorRegistry, namespace: String = "") {
        self.registry = registry
        self.namespace = namespace
        func name(_ metric: String, unit: String, _ help: String) -> MetricNameDescriptor {
            Self.name(metric, unit: unit, help, namespace: namespace)
        }
        latency = registry.makeDurationHistogram(
            descriptor: name("http_request_duration", unit: "seconds", "Time from a request's head to its response, image or error."),
            buckets: [.milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
                      .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10)]
        )
        inFlight = registry.makeGauge(descriptor: name("http_requests_in_flight", unit: "", "HTTP requests being answered."))
        queued = registry.makeGauge(descriptor: name(
            "image_requests_queued", unit: "", "Image requests admitted and not yet answered (running or waiting); --max-queue bounds it."
        ))
        let hitName = name("response_hits", unit: "total", "Image requests answered from a response tier, by tier.")
        hits = Dictionary(uniqueKeysWithValues: Tier.allCases.map { ($0, registry.makeCounter(descriptor: hitName, labels: [("tier", $0.rawValue)])) })
        misses = registry.makeCounter(descriptor: name(
            "response_misses", unit: "total", "Image requests that passed every check and found no stored response (rendered, or refused by the queue)."
        ))
        let writeName = name(
            "response_writes", unit: "total", "Responses written to a shared tier, disk or bucket (begun; a graceful shutdown waits for them)."
        )
        writes = Dictionary(uniqueKeysWithValues: [Tier.disk, .bucket].map { ($0, registry.makeCounter(descriptor: writeName, labels: [("tier", $0.rawValue)])) })
        let failureName = name(
            "result_storage_errors", unit: "total", "Result-storage lookups and writes that failed or timed out (each request was processed instead)."
        )
        storageFailures = Dictionary(uniqueKeysWithValues: StorageOperation.allCases.map {
            ($0, registry.makeCounter(descriptor: failureName, labels: [("operation", $0.rawValue)]))
        })
        encodes = registry.makeValueHistogram(
            descriptor: name("image_encodes", unit: "", "Encodes each still image took: 1 at a fixed quality, more with autoquality (aq) or format:best."),
            buckets: [1, 2, 3, 4, 6, 8, 12, 16, 24]
        )
        let skipName = name(
            "result_storage_skipped", unit: "total", "Result-storage lookups and writes not tried because the store kept failing (its circuit breaker was open)."
        )
        storageSkips = Dictionary(uniqueKeysWithValues: StorageOperation.allCases.map {
            ($0, registry.makeCounter(descriptor: skipName, labels: [("operation", $0.rawValue)]))
        })
    }

    /// A response tier the server keeps its encoded answers in.
    enum Tier: String, CaseIterable { case memory, disk, bucket }

    /// What result storage was asked to do.
    enum StorageOperation: String, CaseIterable { case lookup, write }

    func responseHit(_ tier: Tier) { hits[tier]?.increment() }

    func responseMiss() { misses.increment() }

    func responseWriteBegun(_ tier: Tier) { writes[tier]?.increment() }

    func resultStorageFailed(_ operation: StorageOperation) { storageFailures[operation]?.increment() }

    func resultStorageSkipped(_ operation: StorageOperation) { storageSkips[operation]?.increment() }

    func imageEncoded(encodes count: Int) { encodes.record(Double(count)) }

    func requestStarted() { inFlight.increment() }

    func requestFinished(status: HTTPResponse.Status, after duration: Duration) {
        inFlight.decrement()
        latency.record(duration)
        let code = status.code
        let counter = byStatus.withLock { counters in
            if let counter = counters[code] { return counter }
            let counter = registry.makeCounter(
                descriptor: Self.name("http_requests", unit: "total", "HTTP requests by status.", namespace: namespace), labels: [("status", String(code))]
            )
            counters[code] = counter
            return counter
        }
        counter.increment()
    }

    private static func name(_ metric: String, unit: String, _ help: String, namespace: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: namespaced("imagery", by: namespace), metricName: metric, unitName: unit, helpText: help)
    }

    /// `name` under `namespace` (`--prometheus-namespace`, imgproxy's
    /// `IMGPROXY_PROMETHEUS_NAMESPACE`): `namespace_name`, or `name` when it is empty. The
    /// server's series and the pipeline's (through ``metricsFactory(registry:namespace:)``) both
    /// take it here.
    static func namespaced(_ name: String, by namespace: String) -> String {
        namespace.isEmpty ? name : namespace + "_" + name
    }

    /// The swift-metrics factory the `imagery-server` executable bootstraps: the pipeline's
    /// counters land in `registry`, under `namespace`.
    package static func metricsFactory(registry: PrometheusCollectorRegistry, namespace: String) -> PrometheusMetricsFactory {
        var factory = PrometheusMetricsFactory(registry: registry)
        let sanitized = factory.nameAndLabelSanitizer
        factory.nameAndLabelSanitizer = { name, labels in
            let (clean, cleanLabels) = sanitized(name, labels)
            return (namespaced(clean, by: namespace), cleanLabels)
        }
        return factory
    }

    func queuedChanged(by change: Int) {
        if change > 0 { queued.increment(by: Double(change)) } else { queued.decrement(by: Double(-change)) }
    }

    /// The registry in Prometheus' text format.
    func render() -> [UInt8] { registry.emitToBuffer() }
}
