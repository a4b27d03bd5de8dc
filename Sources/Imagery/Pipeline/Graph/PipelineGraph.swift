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
    /// Which fetch job each `data(for:)` caller waits on.
    private var dataRegistered: [UInt64: FetchJob] = [:]
    private var probes: [Probe] = []

    let downloads: WorkQueue
    let decodes: WorkQueue
    private let loader: any DataLoading
    private let decoder: any ImageDecoding
    private let cache: ImageCache?
    private let disk: DiskTier?
    private let statistics: StatisticsRecorder
    private let logger: Logger

    nonisolated init(configuration: ImagePipeline.Configuration, statistics: StatisticsRecorder) {
        self.downloads = WorkQueue(limit: configuration.maximumConcurrentDownloads)
        self.decodes = WorkQueue(limit: configuration.maximumConcurrentDecodes)
        self.loader = configuration.dataLoader
        self.decoder = configuration.decoder
        self.cache = configuration.imageCache
        self.disk = configuration.dataCache.map {
            DiskTier(cache: $0, policy: configuration.dataCachePolicy, encoder: configuration.processedImageEncoder)
        }
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
            if let disk, disk.readsProcessed(for: request) {
                lookUpProcessed(job, in: disk)
            } else {
                attachFetch(for: job)
            }
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
        checkProbes()
    }

    /// A `data(for:)` caller joins the download of its source, or starts it.
    func startData(_ task: DataTask) {
        guard !task.isFinished else { return }
        let key = ImagePipeline.cacheKey(for: task.request, loader: loader).sourceKey
        joinFetch(key: key, source: task.request.source) { fetch in
            fetch.dataTasks[task.id] = task
            dataRegistered[task.id] = fetch
        }
        checkProbes()
    }

    func cancelData(_ task: DataTask) {
        guard let fetch = dataRegistered.removeValue(forKey: task.id) else { return }
        statistics.recordFailure(kind: "cancelled")
        fetch.dataTasks[task.id] = nil
        if fetch.isAbandoned { cancelFetch(fetch) } else { updatePriority(of: fetch) }
        checkProbes()
    }

    private func subscribe(_ task: ImageTask, to job: DecodeJob) {
        job.tasks[task.id] = task
        registered[task.id] = job
        if let progress = job.fetch?.progress { task.report(progress) }
        updatePriority(of: job)
    }

    // MARK: - Stage 1: one download per source

    private func attachFetch(for job: DecodeJob) {
        joinFetch(key: job.key.sourceKey, source: job.request.source) { fetch in
            fetch.waiters[ObjectIdentifier(job)] = job
            job.fetch = fetch
        }
    }

    /// Adds a waiter (`join`) to the download of `key`, starting one if none is under way;
    /// joining one that is counts as coalesced.
    private func joinFetch(key: String, source: ImageSource, _ join: (FetchJob) -> Void) {
        if let fetch = fetchJobs[key] {
            statistics.recordCoalesced()
            join(fetch)
            updatePriority(of: fetch)
            return
        }
        let fetch = FetchJob(key: key, source: source)
        join(fetch)
        fetchJobs[key] = fetch
        if source.isLocalFile {
            // A local read takes microseconds to milliseconds: it never waits for a download
            // slot, so slow network sources cannot starve it.
            runFetch(fetch)
        } else {
            fetch.item = downloads.enqueue(priority: fetch.priority) { [unowned self] in self.runFetch(fetch) }
        }
    }

    private func runFetch(_ fetch: FetchJob) {
        let loader = self.loader, source = fetch.source, statistics = self.statistics, logger = self.logger
        let options = fetch.options
        let disk = self.disk, key = fetch.key
        let relay = ProgressRelay { [weak fetch, weak self] progress in
            guard let fetch, let self else { return }
            self.relay(progress, from: fetch)
        }
        fetch.work = Task(priority: fetch.priority.taskPriority) {
            let result = await Self.load(
                source, key: key, with: loader, disk: disk, options: options,
                statistics: statistics, logger: logger, progress: relay
            )
            self.fetchFinished(fetch, result)
        }
    }

    /// The original bytes: from the disk tier when it keeps them, else from the loader (and
    /// then stored in the background: delivery never waits for the disk write).
    @concurrent
    private nonisolated static func load(
        _ source: ImageSource,
        key: String,
        with loader: any DataLoading,
        disk: DiskTier?,
        options: ImageRequest.Options,
        statistics: StatisticsRecorder,
        logger: Logger,
        progress: ProgressRelay
    ) async -> Result<(bytes: [UInt8], origin: ImageResponse.Origin), DataLoadingError> {
        if let disk, disk.policy.storesOriginal(resize: nil),
           !options.contains(.skipDiskCacheRead), let bytes = await disk.cache.cachedData(for: key) {
            return .success((bytes, .disk))
        }
        if Task.isCancelled { return .failure(.cancelled) }
        statistics.recordDownload()
        logger.debug("download started", metadata: ["source": "\(source)"])
        do {
            let bytes = try await loader.loadData(for: source) { progress.send($0) }
            return .success((bytes, .source))
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

    private func fetchFinished(_ fetch: FetchJob, _ result: Result<(bytes: [UInt8], origin: ImageResponse.Origin), DataLoadingError>) {
        defer { checkProbes() }
        if let item = fetch.item { downloads.finished(item) }
        fetch.work = nil
        // A fetch that every waiter left was removed from the table when it was cancelled.
        guard fetchJobs[fetch.key] === fetch else { return }
        fetchJobs[fetch.key] = nil
        let waiters = Array(fetch.waiters.values)
        let dataTasks = Array(fetch.dataTasks.values)
        fetch.waiters = [:]
        fetch.dataTasks = [:]
        for task in dataTasks { dataRegistered[task.id] = nil }
        switch result {
        case let .success((bytes, origin)):
            if origin == .source {
                statistics.recordBytes(bytes.count)
                logger.debug("download finished", metadata: ["source": "\(fetch.source)", "bytes": "\(bytes.count)"])
                storeOriginal(bytes, key: fetch.key, for: waiters, dataTasks: dataTasks)
            }
            for task in dataTasks {
                if origin == .disk { statistics.recordDiskHit() }
                task.finish(.success((bytes, origin)))
            }
            for job in waiters {
                job.fetch = nil
                startDecode(job, bytes: bytes, origin: origin, processed: false)
            }
        case let .failure(error):
            logger.debug("download failed", metadata: ["source": "\(fetch.source)", "error": "\(error)"])
            let failure: ImagePipelineError = error == .cancelled ? .cancelled : .loadingFailed(error)
            for task in dataTasks {
                statistics.recordFailure(kind: failure.kind)
                task.finish(.failure(failure))
            }
            for job in waiters {
                job.fetch = nil
                finish(job, .failure(failure))
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

    /// Queues the decode of `bytes`. `processed` bytes are a stored processed image, already at
    /// the requested size: they are decoded as they are.
    private func startDecode(_ job: DecodeJob, bytes: [UInt8], origin: ImageResponse.Origin, processed: Bool) {
        job.origin = origin
        job.decodedStoredProcessed = processed
        job.item = decodes.enqueue(priority: job.priority) { [unowned self] in self.runDecode(job, bytes: bytes) }
    }

    private func runDecode(_ job: DecodeJob, bytes: [UInt8]) {
        let decoder = self.decoder
        var request = job.request
        if job.decodedStoredProcessed { request.resize = nil }
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
            let response = ImageResponse(image: bitmap, origin: job.origin)
            // The cache stores it as a memory response, so a hit is returned as it is.
            if !job.request.options.contains(.skipMemoryCacheWrite) { cache?[job.key] = response }
            if !job.decodedStoredProcessed, let disk, disk.writesProcessed(for: job.request) {
                storeProcessed(bitmap, key: job.key.processedDataKey, in: disk)
            }
            finish(job, .success(response))
        case let .failure(error):
            logger.debug("decode failed", metadata: ["source": "\(job.request.source)", "error": "\(error)"])
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
            if fetch.isAbandoned { cancelFetch(fetch) } else { updatePriority(of: fetch) }
        }
    }

    private func finish(_ job: DecodeJob, _ outcome: ImageTask.Outcome) {
        if decodeJobs[job.key] === job { decodeJobs[job.key] = nil }
        let tasks = job.tasks.values
        job.tasks = [:]
        for task in tasks {
            registered[task.id] = nil
            switch outcome {
            case let .failure(error): statistics.recordFailure(kind: error.kind)
            case let .success(response) where response.origin == .disk: statistics.recordDiskHit()
            case .success: break
            }
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

    // MARK: - The disk tier

    /// Looks for the processed image on disk (off the actor); a miss goes on to the fetch.
    private func lookUpProcessed(_ job: DecodeJob, in disk: DiskTier) {
        let key = job.key.processedDataKey
        job.work = Task(priority: job.priority.taskPriority) {
            let bytes = await Self.read(key, from: disk)
            self.processedLookupFinished(job, bytes)
        }
    }

    @concurrent
    private nonisolated static func read(_ key: String, from disk: DiskTier) async -> [UInt8]? {
        await disk.cache.cachedData(for: key)
    }

    private func processedLookupFinished(_ job: DecodeJob, _ bytes: [UInt8]?) {
        job.work = nil
        guard decodeJobs[job.key] === job else { return }   // every caller left meanwhile
        if let bytes {
            startDecode(job, bytes: bytes, origin: .disk, processed: true)
        } else {
            attachFetch(for: job)
        }
    }

    /// Disk writes under way. Delivery never waits for them; ``isIdle`` does.
    private var pendingDiskWrites = 0

    private func storeOriginal(_ bytes: [UInt8], key: String, for jobs: [DecodeJob], dataTasks: [DataTask]) {
        guard let disk,
              jobs.contains(where: { disk.writesOriginal(for: $0.request) })
                  || dataTasks.contains(where: { disk.writesOriginal(forData: $0.request) })
        else { return }
        statistics.recordDiskWrite()
        pendingDiskWrites += 1
        Task.detached(priority: .utility) {
            await disk.cache.storeData(bytes, for: key)
            await self.diskWriteFinished()
        }
    }

    private func storeProcessed(_ bitmap: Bitmap, key: String, in disk: DiskTier) {
        guard let encoder = disk.encoder else { return }
        statistics.recordDiskWrite()
        pendingDiskWrites += 1
        Task.detached(priority: .utility) {
            if let bytes = try? encoder.encode(bitmap) { await disk.cache.storeData(bytes, for: key) }
            await self.diskWriteFinished()
        }
    }

    private func diskWriteFinished() {
        pendingDiskWrites -= 1
        checkProbes()
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

    /// Whether no work is queued or running.
    var isIdle: Bool {
        decodeJobs.isEmpty && fetchJobs.isEmpty && downloads.running == 0 && decodes.running == 0 && pendingDiskWrites == 0
    }
    /// Downloads waiting for a slot.
    var waitingDownloads: Int { downloads.waitingCount }
    /// Callers registered with a decode job.
    var registeredCount: Int { registered.count }
    /// `data(for:)` callers registered with a fetch job.
    var dataTaskCount: Int { dataRegistered.count }
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
