import Metrics
import Synchronization

/// The live counters behind ``ImagePipeline/Statistics``, mirrored to swift-metrics.
/// Atomics rather than a lock, because the memory-hit path increments two of them; every
/// swift-metrics counter is made once, here, so a failure increments a counter and never
/// makes one.
final class StatisticsRecorder: Sendable {
    private let requests = Atomic<Int>(0)
    private let coalesced = Atomic<Int>(0)
    private let memoryHits = Atomic<Int>(0)
    private let diskHits = Atomic<Int>(0)
    private let diskWrites = Atomic<Int>(0)
    private let downloads = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)
    private let decodes = Atomic<Int>(0)
    private let processingRuns = Atomic<Int>(0)
    private let metrics: Counters
    private let failures = Locked<[String: Int]>([:])
    /// The failure counters, one per known ``ImagePipelineError/kind``, made at start; a kind
    /// outside the list (none today) gets its counter on first use, under the lock.
    private let failureCounters: [String: Counter]
    private let otherFailureCounters = Locked<[String: Counter]>([:])
    private let prefix: String

    private struct Counters: Sendable {
        let requests, coalesced, memoryHits, diskHits, diskWrites, downloads, bytes, decodes, processingRuns: Counter
    }

    init(metricsPrefix prefix: String) {
        self.prefix = prefix
        metrics = Counters(
            requests: Counter(label: "\(prefix)_requests_total"),
            coalesced: Counter(label: "\(prefix)_coalesced_total"),
            memoryHits: Counter(label: "\(prefix)_memory_hits_total"),
            diskHits: Counter(label: "\(prefix)_disk_hits_total"),
            diskWrites: Counter(label: "\(prefix)_disk_writes_total"),
            downloads: Counter(label: "\(prefix)_downloads_total"),
            bytes: Counter(label: "\(prefix)_downloaded_bytes_total"),
            decodes: Counter(label: "\(prefix)_decodes_total"),
            processingRuns: Counter(label: "\(prefix)_processing_runs_total")
        )
        failureCounters = Dictionary(uniqueKeysWithValues: ImagePipelineError.allKinds.map {
            ($0, Counter(label: "\(prefix)_failures_total", dimensions: [("kind", $0)]))
        })
    }

    func recordRequest() { requests.add(1, ordering: .relaxed); metrics.requests.increment() }
    func recordCoalesced() { coalesced.add(1, ordering: .relaxed); metrics.coalesced.increment() }
    func recordMemoryHit() { memoryHits.add(1, ordering: .relaxed); metrics.memoryHits.increment() }
    func recordDiskHit() { diskHits.add(1, ordering: .relaxed); metrics.diskHits.increment() }
    func recordDiskWrite() { diskWrites.add(1, ordering: .relaxed); metrics.diskWrites.increment() }
    func recordDownload() { downloads.add(1, ordering: .relaxed); metrics.downloads.increment() }
    func recordDecode() { decodes.add(1, ordering: .relaxed); metrics.decodes.increment() }
    func recordProcessing() { processingRuns.add(1, ordering: .relaxed); metrics.processingRuns.increment() }

    func recordBytes(_ count: Int) {
        bytes.add(count, ordering: .relaxed)
        metrics.bytes.increment(by: count)
    }

    func recordFailure(kind: String) {
        failures.withLock { $0[kind, default: 0] += 1 }
        if let counter = failureCounters[kind] {
            counter.increment()
        } else {
            otherFailureCounters.withLock { counters in
                if counters[kind] == nil { counters[kind] = Counter(label: "\(prefix)_failures_total", dimensions: [("kind", kind)]) }
                return counters[kind]!
            }.increment()
        }
    }

    var snapshot: ImagePipeline.Statistics {
        var statistics = ImagePipeline.Statistics()
        statistics.requests = requests.load(ordering: .relaxed)
        statistics.coalesced = coalesced.load(ordering: .relaxed)
        statistics.memoryHits = memoryHits.load(ordering: .relaxed)
        statistics.diskHits = diskHits.load(ordering: .relaxed)
        statistics.diskWrites = diskWrites.load(ordering: .relaxed)
        statistics.downloads = downloads.load(ordering: .relaxed)
        statistics.bytesDownloaded = bytes.load(ordering: .relaxed)
        statistics.decodes = decodes.load(ordering: .relaxed)
        statistics.processingRuns = processingRuns.load(ordering: .relaxed)
        statistics.failures = failures.withLock { $0 }
        return statistics
    }
}
