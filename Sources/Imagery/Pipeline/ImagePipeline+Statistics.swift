extension ImagePipeline {
    /// Counters since the pipeline was made, read with ``ImagePipeline/statistics``: the one
    /// statistics type of Imagery. A disk cache reports its own counts in it too (the `disk…`
    /// fields), and the pipeline's snapshot includes them.
    ///
    /// ```swift
    /// let stats = pipeline.statistics
    /// print("\(stats.requests) requests, \(stats.downloads) downloads, \(stats.coalesced) coalesced")
    /// print("disk: \(stats.diskHits) hits, \(stats.diskEvictions) evicted, \(stats.diskRejected) rejected")
    /// ```
    public struct Statistics: Sendable, Hashable {
        // MARK: Requests

        /// Requests made through `image(for:)`, `imageTask(with:)`, `events(for:)`,
        /// `data(for:)`, `loadImage(with:)` and `prefetch(_:)`.
        public var requests = 0
        /// Joins of work already under way, counted at each stage joined: a processing run
        /// (same key), a decode (same source and decode options) or a download (same source).
        public var coalesced = 0
        /// Requests answered from the memory cache.
        public var memoryHits = 0
        /// Entries the memory cache evicted to stay within its limits (its own count).
        public var memoryEvictions = 0
        /// Downloads started (a file read or closure call counts as one).
        public var downloads = 0
        /// Bytes the downloads returned.
        public var bytesDownloaded = 0
        /// Decodes completed.
        public var decodes = 0
        /// Processing runs completed (requests with ``ImageRequest/processors``; requests
        /// that share a run count once).
        public var processingRuns = 0
        /// Failed requests by ``ImagePipelineError/kind`` (`"not_found"`, `"http_5xx"`,
        /// `"decoding"`, `"cancelled"` …).
        public var failures: [String: Int] = [:]

        // MARK: Disk tier

        /// Requests answered from the disk cache (its processed image, or its original bytes
        /// decoded again). For a `DiskCache` read on its own: reads that found an entry.
        public var diskHits = 0
        /// Disk cache reads that found nothing (or an expired entry).
        public var diskMisses = 0
        /// Entries stored in the disk cache (original bytes or processed images).
        public var diskWrites = 0
        /// Entries the disk cache evicted to stay within its bounds.
        public var diskEvictions = 0
        /// Disk entries that failed their integrity check and were deleted instead of served.
        public var diskRejected = 0
        /// Disk reads or writes the storage refused (disk full, read-only): the pipeline went
        /// on from memory and the source.
        public var diskFailures = 0

        /// All counters at zero (for tests, for summing snapshots, and for a ``DataCaching``
        /// implementation to fill in).
        public init() {}
    }
}
