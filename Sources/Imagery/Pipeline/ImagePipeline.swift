import Logging

// The task graph. Boxes on the left belong to callers; everything inside the frame runs on
// PipelineActor (one isolation domain, plain synchronous calls); the loader, the decoder and
// the processors run off it, each in its own Task, and report back with one hop.
//
//  caller                PipelineActor: three stages, each a table of Jobs        off the actor
//  ──────                ──────────────────────────────────────────────────        ─────────────
//  cachedImage(for:) ─► ImageCache (lock, no hop) ─► hit
//  image(for:) ───┐
//  imageTask ─────┼─► ImageTask ─► process Job ─► decode Job ─► fetch Job ─► DataLoading
//  events(for:) ──┘               (ProcessKey:    (DecodeKey:   (FetchKey:
//                                  + processors)   + size,       source)
//                                                  limits)
//  data(for:) ────────► DataTask ──────────────────────────────► (joins the fetch Job too)
//
// Every Job is subscribed to by the stage below it (or by callers): its priority is the
// highest of its subscribers', and the last subscriber out cancels it, which drops its own
// subscription upstream. So cancellation reaches every stage and stops each one only when
// nobody downstream waits for it. Work waits in three WorkQueues, by priority: "downloads"
// (≤ 6), "decodes" and "processing" (≤ cores).
//
// With previews asked for, a decode Job gives its download a PreviewFeed: the loader hands it
// the bytes as they arrive, it decodes scans off the actor, and each preview comes back with
// one hop and travels down the Jobs as an event, never cached.
//
// With a disk tier (DataCaching), a new process Job first looks for its processed image on
// disk and a fetch Job for the original bytes, both off the actor; what comes from the source
// is written back in detached tasks, so delivery never waits for a disk write.

/// Loads images: one download per source, one decode per size and one processing run per
/// list of processors, however many callers ask at once; stops work nobody waits for; caches the results in memory.
///
/// ```swift
/// import Imagery
/// import ImageryCodecs
///
/// let pipeline = ImagePipeline(configuration: .standard)
/// let request = ImageRequest(url: url, resize: .fit(width: 256, height: 256))
/// let response = try await pipeline.response(for: request)
/// print(response.image.width, response.origin)   // 256 source
///
/// // In a list cell, show a cached image in the same frame, with no placeholder flash:
/// if let hit = pipeline.cachedImage(for: request) { cell.show(hit.image) }
/// ```
///
/// Cancelling the Swift task that awaits ``image(for:)-(ImageRequest)`` detaches only that caller; see
/// ``ImageTask`` for explicit priority changes and cancellation.
public final class ImagePipeline: Sendable {
    /// What the pipeline was built from.
    public let configuration: Configuration
    /// The memory cache, if the configuration has one.
    public let cache: ImageCache?

    let loader: any DataLoading
    let graph: PipelineGraph
    let stats: StatisticsRecorder
    let prefetches = PrefetchRegistry()

    /// A pipeline built from `configuration`.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.cache = configuration.imageCache
        self.loader = configuration.dataLoader
        self.stats = StatisticsRecorder(metricsPrefix: configuration.metricsPrefix)
        self.graph = PipelineGraph(configuration: configuration, statistics: stats)
    }

    /// Counters since the pipeline was made: requests, coalesced, memory and disk hits,
    /// downloads, bytes, decodes, failures by kind, and the disk cache's own evictions,
    /// rejections, misses and failures.
    public var statistics: Statistics {
        var snapshot = stats.snapshot
        snapshot.memoryEvictions = cache?.evictionCount ?? 0
        if let disk = configuration.dataCache?.statistics {
            snapshot.diskMisses = disk.diskMisses
            snapshot.diskEvictions = disk.diskEvictions
            snapshot.diskRejected = disk.diskRejected
            snapshot.diskFailures = disk.diskFailures
        }
        return snapshot
    }

    /// Removes `request`'s image from the memory cache and its processed and original entries
    /// from the disk cache.
    public func removeCachedImage(for request: ImageRequest) async {
        let key = cacheKey(for: request)
        cache?[key] = nil
        await configuration.dataCache?.removeData(for: key.processedDataKey)
        await configuration.dataCache?.removeData(for: key.sourceKey)
    }

    /// Empties the memory cache and the disk cache.
    public func removeAllCachedImages() async {
        cache?.removeAll()
        await configuration.dataCache?.removeAll()
    }

    /// The cache key `request` is stored under.
    public func cacheKey(for request: ImageRequest) -> ImageCacheKey {
        Self.cacheKey(for: routed(request), loader: loader)
    }

    /// `request` as it is loaded: through ``Configuration/requestRouter`` when one is set.
    func routed(_ request: ImageRequest) -> ImageRequest {
        configuration.requestRouter?.route(request) ?? request
    }

    static func cacheKey(for request: ImageRequest, loader: any DataLoading) -> ImageCacheKey {
        let partition = loader.cachePartition(for: request.source)
        if request.cacheIdentity == nil, partition == nil {
            // The common case: the source's own identity, whose hash was computed once.
            return ImageCacheKey(
                sourceKey: request.source.identity, sourceHash: request.source.identityHash,
                decodeOptions: request.decodeOptions, processors: request.processors.cacheIdentifier
            )
        }
        var sourceKey = request.cacheIdentity.map { $0 + request.source.credentialSuffix } ?? request.source.identity
        if let partition { sourceKey += "|" + partition }
        return ImageCacheKey(sourceKey: sourceKey, decodeOptions: request.decodeOptions, processors: request.processors.cacheIdentifier)
    }

    /// The image for `request` if it is in the memory cache, without suspending: callable
    /// from any thread or actor, so a view can show it in the frame it is configured.
    /// Does not count as a request in ``statistics``. O(1).
    public func cachedImage(for request: ImageRequest) -> ImageResponse? {
        cachedImage(for: request, key: cacheKey(for: request))
    }

    /// ``cachedImage(for:)`` for a caller that already holds the request's key.
    package func cachedImage(for request: ImageRequest, key: ImageCacheKey) -> ImageResponse? {
        guard let cache, !request.options.contains(.skipMemoryCacheRead), let hit = cache[key], hit.fits(request) else { return nil }
        return hit
    }

    /// Loads the image for `request`: from memory without leaving the caller's executor, or
    /// by joining or starting the shared download and decode. The image alone, as Nuke's
    /// `image(for:)` returns it; ``response(for:)-(ImageRequest)`` adds where it came from and,
    /// for animated requests, its frames.
    ///
    /// Cancelling the calling task detaches only this caller: it gets
    /// ``ImagePipelineError/cancelled`` at once, and the shared work stops only when no
    /// caller is left.
    ///
    /// ```swift
    /// let image = try await pipeline.image(for: ImageRequest(url: url, resize: .fit(width: 64, height: 64)))
    /// print(image.width, image.height)
    /// ```
    nonisolated(nonsending)
    public func image(for request: ImageRequest) async throws(ImagePipelineError) -> Bitmap {
        try await response(for: request).image
    }

    /// Loads `request` as ``image(for:)-(ImageRequest)`` does, and answers the whole
    /// response: the image, its ``ImageResponse/origin`` (memory, disk or source), and the
    /// frames of an animated request.
    ///
    /// ```swift
    /// let response = try await pipeline.response(for: ImageRequest(url: url))
    /// if response.origin == .source { print("downloaded") }
    /// ```
    nonisolated(nonsending)
    public func response(for request: ImageRequest) async throws(ImagePipelineError) -> ImageResponse {
        let task = start(request)
        let outcome = await withTaskCancellationHandler {
            await task.outcome()
        } onCancel: {
            task.cancel()
        }
        return try outcome.get()
    }

    /// Loads `request` as ``response(for:)-(ImageRequest)`` does, and keeps the response's
    /// pixels charged to ``Configuration/decodingPixelBudget`` until the caller releases the hold
    /// (or lets it go): a server that encodes what it loaded keeps new decodes waiting while it
    /// encodes, so images never pile up behind its encoder. No hold without a budget, and none
    /// for a memory-cache hit, whose pixels the cache's own limit covers.
    ///
    /// ```swift
    /// let (response, hold) = try await pipeline.heldResponse(for: request)
    /// defer { hold?.release() }
    /// let png = try ImageEncoder(format: .png).encode(response.image)
    /// ```
    nonisolated(nonsending)
    package func heldResponse(for request: ImageRequest) async throws(ImagePipelineError) -> (ImageResponse, PixelHold?) {
        let task = start(request, holdsPixels: true)
        let outcome = await withTaskCancellationHandler {
            await task.outcome()
        } onCancel: {
            task.cancel()
        }
        // Only a success carries a hold.
        return (try outcome.get(), task.takeHold())
    }

    /// Starts loading `request` and returns its task at once, for callers that change
    /// priority or cancel explicitly.
    ///
    /// ```swift
    /// let task = pipeline.imageTask(with: request)
    /// task.priority = .veryHigh
    /// let response = try await task.response
    /// ```
    public func imageTask(with request: ImageRequest) -> ImageTask {
        start(request)
    }

    /// Progress of the shared download (and previews, when the request gets them), then the
    /// image, as an async sequence that throws
    /// ``ImagePipelineError``. Ending the iteration early cancels this caller's interest.
    ///
    /// ```swift
    /// for try await event in pipeline.events(for: request) {
    ///     switch event {
    ///     case .progress(let progress): bar.fraction = progress.fraction ?? 0
    ///     case .preview(let preview): imageView.show(preview)   // with progressive previews on
    ///     case .finished(let response): imageView.show(response.image)
    ///     }
    /// }
    /// ```
    public func events(for request: ImageRequest) -> ImageTask.Events {
        let stream = AsyncStream<ImageTask.Events.Item> { continuation in
            let task = start(request) { task in
                task.observe(
                    events: { continuation.yield(.event($0)) },
                    finish: { outcome in
                        if case let .failure(error) = outcome { continuation.yield(.failure(error)) }
                        continuation.finish()
                    }
                )
                return true
            }
            continuation.onTermination = { _ in task.cancel() }
        }
        return ImageTask.Events(stream: stream)
    }

    /// Starts `request` with callbacks set before it can report anything, so no progress and
    /// no outcome is missed; a memory hit finishes it before this returns. For the view model,
    /// which hops each report to the main actor itself.
    package func imageTask(
        with request: ImageRequest,
        onEvent: @escaping @Sendable (ImageTask.Event) -> Void,
        onFinish: @escaping @Sendable (Result<ImageResponse, ImagePipelineError>) -> Void
    ) -> ImageTask {
        start(request) { task in
            task.observe(events: onEvent, finish: onFinish)
            return true
        }
    }

    /// Waits until no download, decode or disk write is queued or running.
    public func waitUntilIdle() async {
        await graph.waitUntil { $0.isIdle }
    }

    // MARK: - Internals

    /// The one way every task starts (``image(for:)-(ImageRequest)``, ``imageTask(with:)``,
    /// ``events(for:)``, the completion bridge, prefetching and the view model; ``data(for:)``
    /// through ``start(data:)``): the request is counted, routed and keyed once; `prepare` sets
    /// the task up before anything can report (returning `false` cancels it unstarted); a
    /// memory hit finishes it on the spot, and any other task goes to the graph with its key.
    @discardableResult
    func start(_ request: ImageRequest, holdsPixels: Bool = false, prepare: (ImageTask) -> Bool = { _ in true }) -> ImageTask {
        let (routed, key) = admit(request, routing: true)
        let task = ImageTask(request: routed, key: key, graph: graph, holdsPixels: holdsPixels)
        guard prepare(task) else {
            stats.recordFailure(kind: "cancelled")
            task.finish(.failure(.cancelled))
            return task
        }
        if let hit = cachedImage(for: routed, key: key) {
            stats.recordMemoryHit()
            task.finish(.success(hit))
        } else {
            Task { @PipelineActor [graph] in graph.start(task) }
        }
        return task
    }

    /// ``start(_:prepare:)`` for a caller of the original bytes: counted and keyed in the same
    /// place, not routed (it asks for the source's own bytes), and handed to the graph's fetch
    /// stage, beside the decode jobs of the same source.
    func start(data request: ImageRequest) -> DataTask {
        let (request, key) = admit(request, routing: false)
        let task = DataTask(request: request, sourceKey: key.sourceKey)
        Task { @PipelineActor [graph] in graph.startData(task) }
        return task
    }

    /// Counts `request`, routes it once when `routing` (routing signs a URL; a routed request
    /// is not routed again) and computes its key once.
    private func admit(_ request: ImageRequest, routing: Bool) -> (ImageRequest, ImageCacheKey) {
        stats.recordRequest()
        let request = routing ? routed(request) : request
        return (request, Self.cacheKey(for: request, loader: loader))
    }
}
