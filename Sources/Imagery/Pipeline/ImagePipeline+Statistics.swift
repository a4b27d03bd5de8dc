import Metrics
import Synchronization

extension ImagePipeline {
    /// Counters since the pipeline was made, read with ``ImagePipeline/statistics``.
    ///
    /// ```swift
    /// let stats = pipeline.statistics
    /// print("\(stats.requests) requests, \(stats.downloads) downloads, \(stats.coalesced) coalesced")
    /// ```
    public struct Statistics: Sendable, Hashable {
        /// Requests made through `image(for:)`, `imageTask(with:)`, `events(for:)`,
        /// `loadImage(with:)` and `prefetch(_:)`.
        public var requests = 0
        /// Requests that joined work already under way: a decode (same key) or a download
        /// (same source, another size).
        public var coalesced = 0
        /// Requests answered from the memory cache.
        public var memoryHits = 0
        /// Requests answered from the disk cache (its processed image, or its original bytes
        /// decoded again).
        public var diskHits = 0
        /// Entries the pipeline stored in the disk cache (original bytes or processed images).
        public var diskWrites = 0
        /// Entries the disk cache evicted to stay within its bounds.
        public var diskEvictions = 0
        /// Disk entries that failed their integrity check and were deleted instead of served.
        public var diskRejected = 0
        /// Downloads started (a file read or closure call counts as one).
        public var downloads = 0
        /// Bytes the downloads returned.
        public var bytesDownloaded = 0
        /// Decodes completed.
        public var decodes = 0
        /// Failed requests by ``ImagePipelineError/kind`` (`"not_found"`, `"http_5xx"`,
        /// `"decoding"`, `"cancelled"` …).
        public var failures: [String: Int] = [:]

        /// All counters at zero (for tests and for summing snapshots).
        public init() {}

        init(requests: Int, coalesced: Int, memoryHits: Int, diskHits: Int, diskWrites: Int,
             downloads: Int, bytesDownloaded: Int, decodes: Int, failures: [String: Int]) {
            self.requests = requests
            self.coalesced = coalesced
            self.memoryHits = memoryHits
            self.diskHits = diskHits
            self.diskWrites = diskWrites
            self.downloads = downloads
            self.bytesDownloaded = bytesDownloaded
            self.decodes = decodes
            self.failures = failures
        }
    }
}

/// The live counters behind ``ImagePipeline/Statistics``, mirrored to swift-metrics.
/// Atomics rather than a lock: the memory-hit path increments two of them.
final class PipelineStatistics: Sendable {
    private let requests = Atomic<Int>(0)
    private let coalesced = Atomic<Int>(0)
    private let memoryHits = Atomic<Int>(0)
    private let diskHits = Atomic<Int>(0)
    private let diskWrites = Atomic<Int>(0)
    private let downloads = Atomic<Int>(0)
    private let bytes = Atomic<Int>(0)
    private let decodes = Atomic<Int>(0)
    private let failures = Locked<[String: Int]>([:])
    private let metrics: Counters

    private struct Counters: Sendable {
        let requests, coalesced, memoryHits, diskHits, downloads, bytes, decodes: Counter
        let prefix: String
    }

    init(metricsPrefix prefix: String) {
        metrics = Counters(
            requests: Counter(label: "\(prefix)_requests_total"),
            coalesced: Counter(label: "\(prefix)_coalesced_total"),
            memoryHits: Counter(label: "\(prefix)_memory_hits_total"),
            diskHits: Counter(label: "\(prefix)_disk_hits_total"),
            downloads: Counter(label: "\(prefix)_downloads_total"),
            bytes: Counter(label: "\(prefix)_downloaded_bytes_total"),
            decodes: Counter(label: "\(prefix)_decodes_total"),
            prefix: prefix
        )
    }

    func recordRequest() { requests.add(1, ordering: .relaxed); metrics.requests.increment() }
    func recordCoalesced() { coalesced.add(1, ordering: .relaxed); metrics.coalesced.increment() }
    func recordMemoryHit() { memoryHits.add(1, ordering: .relaxed); metrics.memoryHits.increment() }
    func recordDiskHit() { diskHits.add(1, ordering: .relaxed); metrics.diskHits.increment() }
    func recordDiskWrite() { diskWrites.add(1, ordering: .relaxed) }
    func recordDownload() { downloads.add(1, ordering: .relaxed); metrics.downloads.increment() }
    func recordDecode() { decodes.add(1, ordering: .relaxed); metrics.decodes.increment() }

    func recordBytes(_ count: Int) {
        bytes.add(count, ordering: .relaxed)
        metrics.bytes.increment(by: count)
    }

    func recordFailure(kind: String) {
        failures.withLock { $0[kind, default: 0] += 1 }
        Counter(label: "\(metrics.prefix)_failures_total", dimensions: [("kind", kind)]).increment()
    }

    var snapshot: ImagePipeline.Statistics {
        ImagePipeline.Statistics(
            requests: requests.load(ordering: .relaxed),
            coalesced: coalesced.load(ordering: .relaxed),
            memoryHits: memoryHits.load(ordering: .relaxed),
            diskHits: diskHits.load(ordering: .relaxed),
            diskWrites: diskWrites.load(ordering: .relaxed),
            downloads: downloads.load(ordering: .relaxed),
            bytesDownloaded: bytes.load(ordering: .relaxed),
            decodes: decodes.load(ordering: .relaxed),
            failures: failures.withLock { $0 }
        )
    }
}
