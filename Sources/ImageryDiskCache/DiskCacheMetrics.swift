import Metrics

/// The disk tier's own swift-metrics counters, made once when the cache opens: what it evicts,
/// rejects as damaged and fails to read or write is its own business, reported by it whatever
/// pipeline (or none) uses it.
struct DiskCacheMetrics: Sendable {
    let evictions: Counter
    let rejected: Counter
    let failures: Counter

    init(prefix: String) {
        evictions = Counter(label: "\(prefix)_disk_evictions_total")
        rejected = Counter(label: "\(prefix)_disk_rejected_total")
        failures = Counter(label: "\(prefix)_disk_failures_total")
    }
}
