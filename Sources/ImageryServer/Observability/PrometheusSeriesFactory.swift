import CoreMetrics
import Prometheus

/// swift-metrics into the registry `/metrics` renders: every series named under the namespace
/// (`--prometheus-namespace`), and those the server describes given their `# HELP` line and
/// buckets. swift-prometheus's own factory writes no help text, and its registry refuses a
/// second help text for a name, so the description has to be given when the series is made.
struct PrometheusSeriesFactory: MetricsFactory {
    /// How a series is shown: its help text, and a histogram's buckets.
    struct Description: Sendable {
        var help: String
        var durationBuckets: [Duration] = []
        var valueBuckets: [Double] = []
    }

    let registry: PrometheusCollectorRegistry
    let namespace: String
    /// By the name a metric is made with, before the namespace.
    let descriptions: [String: Description]

    private func descriptor(_ label: String) -> (MetricNameDescriptor, Description?) {
        let description = descriptions[label]
        let name = ServerMetrics.namespaced(label, by: namespace)
        return (MetricNameDescriptor(metricName: name, unitName: "", helpText: description?.help ?? ""), description)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: descriptor(label).0, labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(descriptor: descriptor(label).0, labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        let (name, description) = descriptor(label)
        guard aggregate else { return registry.makeGauge(descriptor: name, labels: dimensions) }
        let buckets = description?.valueBuckets ?? []
        return registry.makeValueHistogram(descriptor: name, labels: dimensions, buckets: buckets.isEmpty ? Self.valueBuckets : buckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: descriptor(label).0, labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        let (name, description) = descriptor(label)
        let buckets = description?.durationBuckets ?? []
        return registry.makeDurationHistogram(descriptor: name, labels: dimensions, buckets: buckets.isEmpty ? Self.durationBuckets : buckets)
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
        if let histogram = handler as? Prometheus.ValueHistogram { registry.unregisterValueHistogram(histogram) }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? Prometheus.DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }

    /// Prometheus' client libraries' defaults, for series the server does not describe.
    static let durationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
    ]
    static let valueBuckets: [Double] = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000]
}
