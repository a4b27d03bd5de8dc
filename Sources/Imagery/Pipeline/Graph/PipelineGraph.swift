import Logging

/// The coalescing graph. Everything here runs on ``PipelineActor`` as plain synchronous
/// calls; the only suspension points are the loader and decoder, which run off the actor
/// in tasks that report back with one hop each.
@PipelineActor
final class PipelineGraph {
    private var decodeJobs: [ImageCacheKey: DecodeJob] = [:]
    private var fetchJobs: [String: FetchJob] = [:]
    /// Which decode job each registered caller waits on.
    private var registered: [UInt64: DecodeJob] = [:]
    private var probes: [Probe] = []

    let downloads: WorkQueue
    let decodes: WorkQueue
    private let loader: any DataLoading
    private let decoder: any ImageDecoding
    private let cache: ImageCache?
    private let statistics: PipelineStatistics
    private let logger: Logger

    nonisolated init(configuration: ImagePipeline.Configuration, statistics: PipelineStatistics) {
        self.downloads = WorkQueue(limit: configuration.maximumConcurrentDownloads)
        self.decodes = WorkQueue(limit: configuration.maximumConcurrentDecodes)
        self.loader = configuration.dataLoader
        self.decoder = configuration.decoder
        self.cache = configuration.imageCache
        self.statistics = statistics
        self.logger = configuration.logger
    }

    // MARK: - Callers

    func start(_ task: ImageTask) {
        guard !task.isFinished else { return }
        let request = task.request
        let key = ImagePipeline.cacheKey(for: request, loader: loader)
        if !request.options.contains(.skipMemoryCacheRead), let hit = cache?[key] {
            statistics.recordMemoryHit()
            task.finish(.success(hit))
            return
        }
        if let job = decodeJobs[key] {
            statistics.recordCoalesced()
            subscribe(task, to: job)
        } else {
            let job = DecodeJob(key: key, request: request)
            decodeJobs[key] = job
            subscribe(task, to: job)
            attachFetch(for: job)
        }
        checkProbes()
    }

    func cancel(_ task: ImageTask) {
        guard let job = registered.removeValue(forKey: task.id) else { return }
        statistics.recordFailure(kind: "cancelled")
        job.tasks[task.id] = nil
        if job.tasks.isEmpty {
            cancelDecode(job)
        } else {
            updatePriority(of: job)
        }
        checkProbes()
    }

    func priorityChanged(_ task: ImageTask) {
        guard let job = registered[task.id] else { return }
        updatePriority(of: job)
    }

    private func subscribe(_ task: ImageTask, to job: DecodeJob) {
        job.tasks[task.id] = task
        registered[task.id] = job
        if let progress = job.fetch?.progress { task.report(progress) }
        updatePriority(of: job)
    }

    // MARK: - Stage 1: one download per source

    private func attachFetch(for job: DecodeJob) {
        let key = job.key.sourceKey
        if let fetch = fetchJobs[key] {
            statistics.recordCoalesced()
            fetch.waiters[ObjectIdentifier(job)] = job
            job.fetch = fetch
            updatePriority(of: fetch)
            return
        }
        let fetch = FetchJob(key: key, source: job.request.source)
        fetch.waiters[ObjectIdentifier(job)] = job
        job.fetch = fetch
        fetchJobs[key] = fetch
        fetch.item = downloads.enqueue(priority: fetch.priority) { [unowned self] in self.runFetch(fetch) }
    }

    private func runFetch(_ fetch: FetchJob) {
        statistics.recordDownload()
        logger.debug("download started", metadata: ["source": "\(fetch.source)"])
        let loader = self.loader, source = fetch.source
        let relay = ProgressRelay { [weak fetch, weak self] progress in
            guard let fetch, let self else { return }
            self.relay(progress, from: fetch)
        }
        fetch.work = Task(priority: fetch.priority.taskPriority) {
            let result = await Self.load(source, with: loader, progress: relay)
            self.fetchFinished(fetch, result)
        }
    }

    @concurrent
    private nonisolated static func load(
        _ source: ImageSource, with loader: any DataLoading, progress: ProgressRelay
    ) async -> Result<[UInt8], DataLoadingError> {
        do {
            return .success(try await loader.loadData(for: source) { progress.send($0) })
        } catch {
            return .failure(error)
        }
    }

    private func relay(_ progress: DataProgress, from fetch: FetchJob) {
        guard fetchJobs[fetch.key] === fetch else { return }
        fetch.progress = progress
        for job in fetch.waiters.values {
            for task in job.tasks.values { task.report(progress) }
        }
    }

    private func fetchFinished(_ fetch: FetchJob, _ result: Result<[UInt8], DataLoadingError>) {
        defer { checkProbes() }
        if let item = fetch.item { downloads.finished(item) }
        fetch.work = nil
        // A fetch that every waiter left was removed from the table when it was cancelled.
        guard fetchJobs[fetch.key] === fetch else { return }
        fetchJobs[fetch.key] = nil
        let waiters = Array(fetch.waiters.values)
        fetch.waiters = [:]
        switch result {
        case let .success(bytes):
            statistics.recordBytes(bytes.count)
            logger.debug("download finished", metadata: ["source": "\(fetch.source)", "bytes": "\(bytes.count)"])
            for job in waiters {
                job.fetch = nil
                startDecode(job, bytes: bytes)
            }
        case let .failure(error):
            logger.notice("download failed", metadata: ["source": "\(fetch.source)", "error": "\(error)"])
            let outcome: ImageTask.Outcome = .failure(error == .cancelled ? .cancelled : .loadingFailed(error))
            for job in waiters {
                job.fetch = nil
                finish(job, outcome)
            }
        }
    }

    private func cancelFetch(_ fetch: FetchJob) {
        guard fetchJobs[fetch.key] === fetch else { return }
        fetchJobs[fetch.key] = nil
        if let item = fetch.item { downloads.cancel(item) }
        fetch.work?.cancel()
        logger.debug("download cancelled: no caller is waiting", metadata: ["source": "\(fetch.source)"])
    }

    private func updatePriority(of fetch: FetchJob) {
        if let item = fetch.item { downloads.setPriority(item, to: fetch.priority) }
    }

    // MARK: - Stage 2: one decode per cache key

    private func startDecode(_ job: DecodeJob, bytes: [UInt8]) {
        job.item = decodes.enqueue(priority: job.priority) { [unowned self] in self.runDecode(job, bytes: bytes) }
    }

    private func runDecode(_ job: DecodeJob, bytes: [UInt8]) {
        let decoder = self.decoder, request = job.request
        job.work = Task(priority: job.priority.taskPriority) {
            let result = await Self.decode(bytes, request: request, decoder: decoder)
            self.decodeFinished(job, result)
        }
    }

    @concurrent
    private nonisolated static func decode(
        _ bytes: [UInt8], request: ImageRequest, decoder: any ImageDecoding
    ) async -> Result<Bitmap, ImagePipelineError> {
        // Cancellation is honoured between stages: before the decode, and before the result
        // is handed back (a decode itself is not interruptible).
        if Task.isCancelled { return .failure(.cancelled) }
        var options = DecodingOptions()
        options.policy = request.decodingPolicy
        options.maximumPixelCount = request.maximumPixelCount
        do throws(ImageError) {
            let bitmap: Bitmap = if let resize = request.resize {
                try decoder.decode(bytes, resize: resize, allowsUpscaling: request.allowsUpscaling, options: options)
            } else {
                try decoder.decode(bytes, options: options)
            }
            if Task.isCancelled { return .failure(.cancelled) }
            return .success(bitmap)
        } catch let .invalidRequest(detail) {
            return .failure(.processingFailed(source: request.source.description, .invalidRequest(detail)))
        } catch {
            return .failure(.decodingFailed(source: request.source.description, error))
        }
    }

    private func decodeFinished(_ job: DecodeJob, _ result: Result<Bitmap, ImagePipelineError>) {
        defer { checkProbes() }
        if let item = job.item { decodes.finished(item) }
        job.work = nil
        guard decodeJobs[job.key] === job else { return }
        switch result {
        case let .success(bitmap):
            statistics.recordDecode()
            // Stored as a memory response, so that a hit is returned as it is, with no rebuilding.
            if !job.request.options.contains(.skipMemoryCacheWrite) {
                cache?[job.key] = ImageResponse(image: bitmap, origin: .memory)
            }
            finish(job, .success(ImageResponse(image: bitmap, origin: .source)))
        case let .failure(error):
            logger.notice("decode failed", metadata: ["source": "\(job.request.source)", "error": "\(error)"])
            finish(job, .failure(error))
        }
    }

    private func cancelDecode(_ job: DecodeJob) {
        if decodeJobs[job.key] === job { decodeJobs[job.key] = nil }
        if let item = job.item { decodes.cancel(item) }
        job.work?.cancel()
        if let fetch = job.fetch {
            fetch.waiters[ObjectIdentifier(job)] = nil
            job.fetch = nil
            if fetch.waiters.isEmpty { cancelFetch(fetch) } else { updatePriority(of: fetch) }
        }
    }

    private func finish(_ job: DecodeJob, _ outcome: ImageTask.Outcome) {
        if decodeJobs[job.key] === job { decodeJobs[job.key] = nil }
        let tasks = job.tasks.values
        job.tasks = [:]
        for task in tasks {
            registered[task.id] = nil
            if case let .failure(error) = outcome { statistics.recordFailure(kind: error.kind) }
            task.finish(outcome)
        }
    }

    private func updatePriority(of job: DecodeJob) {
        let priority = job.highestTaskPriority()
        guard priority != job.priority else { return }
        job.priority = priority
        if let item = job.item { decodes.setPriority(item, to: priority) }
        if let fetch = job.fetch { updatePriority(of: fetch) }
    }

    // MARK: - Probes

    /// A condition someone awaits (tests, `ImagePipeline.waitUntilIdle`), checked after every
    /// change to the graph instead of by polling.
    private struct Probe {
        let condition: @PipelineActor (PipelineGraph) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    func waitUntil(_ condition: @escaping @PipelineActor (PipelineGraph) -> Bool) async {
        if condition(self) { return }
        await withCheckedContinuation { probes.append(Probe(condition: condition, continuation: $0)) }
    }

    private func checkProbes() {
        guard !probes.isEmpty else { return }
        var remaining: [Probe] = []
        for probe in probes {
            if probe.condition(self) { probe.continuation.resume() } else { remaining.append(probe) }
        }
        probes = remaining
    }

    /// Callers waiting on the decode job for `key`.
    func waiterCount(for key: ImageCacheKey) -> Int { decodeJobs[key]?.tasks.count ?? 0 }
    /// Whether a download for `sourceKey` is queued or running.
    func isFetching(_ sourceKey: String) -> Bool { fetchJobs[sourceKey] != nil }
    /// Whether no work is queued or running.
    var isIdle: Bool { decodeJobs.isEmpty && fetchJobs.isEmpty && downloads.running == 0 && decodes.running == 0 }
    /// Downloads waiting for a slot.
    var waitingDownloads: Int { downloads.waitingCount }
    /// Callers registered with a decode job.
    var registeredCount: Int { registered.count }
    /// The queue priority of the download for `sourceKey`, if one is queued or running.
    func downloadPriority(for sourceKey: String) -> ImageRequest.Priority? { fetchJobs[sourceKey]?.item?.priority }
}

/// Forwards loader progress to the graph with at most one hop in flight: a fast download
/// reports many chunks, and only the latest matters.
final class ProgressRelay: Sendable {
    private let pending = Locked<DataProgress?>(nil)
    private let deliver: @PipelineActor @Sendable (DataProgress) -> Void

    init(deliver: @escaping @PipelineActor @Sendable (DataProgress) -> Void) {
        self.deliver = deliver
    }

    func send(_ progress: DataProgress) {
        let schedule = pending.withLock { pending -> Bool in
            defer { pending = progress }
            return pending == nil
        }
        guard schedule else { return }
        Task { @PipelineActor in
            guard let latest = self.pending.withLock({ value -> DataProgress? in defer { value = nil }; return value }) else { return }
            self.deliver(latest)
        }
    }
}
