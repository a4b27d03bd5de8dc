import Logging
import Metrics
import Tracing

/// The coalescing graph: three stages, each with its own table of jobs.
///
/// 1. **Fetch** (`PipelineGraph+Fetch.swift`): one download per source.
/// 2. **Decode** (`PipelineGraph+Decode.swift`): one decode per source and decode options.
/// 3. **Process** (`PipelineGraph+Process.swift`): one processing run per decode and
///    processors; it also holds the processed-image disk tier and the memory cache writes.
///
/// Each job is a ``Job``: its subscribers are the jobs of the next stage (or the callers),
/// which is how priority and cancellation travel. Everything here runs on ``PipelineActor``
/// as plain synchronous calls; loading, decoding and processing run off the actor in tasks
/// that report back with one hop each.
@PipelineActor
final class PipelineGraph {
    var fetchJobs: [FetchKey: Job<Fetched>] = [:]
    var decodeJobs: [DecodeKey: Job<Decoded>] = [:]
    var processJobs: [ProcessKey: Job<ImageResponse>] = [:]
    /// The preview feeds waiting for each download's bytes, while it has any.
    var fanouts: [FetchKey: ChunkFanout] = [:]
    /// Processing jobs running their processors on a preview now; previews that come
    /// meanwhile are dropped.
    var processingPreviews: Set<ObjectIdentifier> = []
    /// Each registered caller's subscription.
    private var registered: [UInt64: Subscription] = [:]
    /// Each `data(for:)` caller's subscription.
    private var dataRegistered: [UInt64: Subscription] = [:]
    private var probes: [Probe] = []
    private var nextProbeID: UInt64 = 0

    /// Backpressure: a source downloaded faster than it can be decoded waits in memory, so
    /// the sources downloading and those waiting for a decode together stay within the
    /// download limit. Made on the actor at first use, where each queue can name the other.
    private(set) lazy var downloads: WorkQueue = WorkQueue(limit: downloadLimit, admits: { [unowned self] in
        decodes.waitingCount + downloads.running < downloads.limit
    })
    /// With a budget, decodes also wait while decoded images wait for a processing run, whose
    /// inputs are charged as they wait: the budget's room goes to finishing images first.
    private(set) lazy var decodes: WorkQueue = WorkQueue(
        limit: decodeLimit, sharing: pixelBudget, alone: .whenNothingRuns,
        admits: { [unowned self] in pixelBudget == nil || processing.waitingCount == 0 },
        onLeftWaiting: { [unowned self] in
            downloads.retry()
            checkProbes()   // a decode started by room released elsewhere (a hold, a run)
        },
        waitingGauge: waitingGauge("decode")
    )
    /// A run waits for room for what it adds to its input; when none runs, the next starts
    /// whatever it adds, since only runs release the inputs waiting for them.
    private(set) lazy var processing: WorkQueue = WorkQueue(
        limit: decodeLimit, sharing: pixelBudget, alone: .whenQueueIsIdle,
        onLeftWaiting: { [unowned self] in
            if pixelBudget != nil { decodes.retry() }
            checkProbes()
        },
        waitingGauge: waitingGauge("process")
    )
    /// The room encoders work in beside the images they encode, at most `decodeLimit` at once:
    /// an encode waits for it as a decode does (``ImagePipeline/encodingCharge(pixels:priority:source:)``).
    private(set) lazy var encodes: WorkQueue = WorkQueue(
        limit: decodeLimit, sharing: pixelBudget, alone: .whenNoWorkRuns, waitingGauge: waitingGauge("encode")
    )
    /// `<prefix>_work_waiting` for `stage`: work waiting for a slot or for room in the budget.
    private func waitingGauge(_ stage: String) -> Meter {
        Meter(label: "\(metricsPrefix)_work_waiting", dimensions: [("stage", stage)])
    }
    /// While a decode delivers its image: how many jobs it feeds. A run that shares its
    /// input copies it, beside the original that the others keep.
    var decodeSharers: [DecodeKey: Int] = [:]
    /// Encodes waiting for room or encoding, by their waiter, until withdrawn or released.
    var encodingItems: [ObjectIdentifier: WorkQueue.Item] = [:]
    /// The pixels decodes, processing runs and held deliveries share
    /// (``ImagePipeline/Configuration/decodingPixelBudget``); `nil` for no budget.
    let pixelBudget: PixelBudget?
    private let downloadLimit: Int
    /// The prefix of the graph's gauges (``ImagePipeline/Configuration/metricsPrefix``).
    private let metricsPrefix: String
    private let decodeLimit: Int
    let loader: any DataLoading
    let decoder: any ImageDecoding
    let draftHeadroom: Int
    /// ``ImagePipeline/Configuration/reducesWhileDecoding``.
    let reducesWhileDecoding: Bool
    let resizesInLinearLight: Bool
    let cache: ImageCache?
    let disk: DiskTier?
    let statistics: StatisticsRecorder
    let logger: Logger
    let previewsByDefault: Bool
    let previewInterval: Duration

    /// Original bytes, where they came from, and what their source said about them (nothing
    /// for a stored original: the disk tier keeps bytes only).
    typealias Fetched = (bytes: [UInt8], origin: ImageResponse.Origin, headers: SourceHeaders)
    /// A decoded image and where its bytes came from.
    typealias Decoded = ImageResponse

    nonisolated init(configuration: ImagePipeline.Configuration, statistics: StatisticsRecorder) {
        self.downloadLimit = configuration.maximumConcurrentDownloads
        self.metricsPrefix = configuration.metricsPrefix
        self.decodeLimit = configuration.maximumConcurrentDecodes
        self.pixelBudget = configuration.decodingPixelBudget.map { limit in
            configuration.decodingPixelCeiling.map {
                PixelBudget(limit: limit, ceiling: $0, largeWorkWaitsForHolds: configuration.largeWorkWaitsForHolds, metricsPrefix: configuration.metricsPrefix)
            } ?? PixelBudget(limit: limit, largeWorkWaitsForHolds: configuration.largeWorkWaitsForHolds, metricsPrefix: configuration.metricsPrefix)
        }
        self.loader = configuration.dataLoader
        self.decoder = configuration.decoder
        self.draftHeadroom = max(1, configuration.draftHeadroom)
        self.reducesWhileDecoding = configuration.reducesWhileDecoding
        self.resizesInLinearLight = configuration.resizesInLinearLight
        self.cache = configuration.imageCache
        self.disk = configuration.dataCache.map {
            DiskTier(cache: $0, policy: configuration.dataCachePolicy, encoder: configuration.processedImageEncoder)
        }
        self.statistics = statistics
        self.logger = configuration.logger
        self.previewsByDefault = configuration.isProgressiveDecodingEnabled
        self.previewInterval = configuration.progressiveDecodingInterval
    }

    // MARK: - Callers

    func start(_ task: ImageTask) {
        defer { checkProbes() }
        guard !task.isFinished else { return }
        // The memory cache was read once, when the task was made (ImagePipeline.start).
        let request = task.request
        registered[task.id] = joinProcess(request, key: task.key, priority: task.priority, writes: writes(for: request), parent: task.span) { [unowned self] event in
            switch event {
            case let .progress(progress):
                task.report(progress)
            case let .preview(preview):
                if wantsPreviews(task.request) { task.report(preview: preview) }
            case let .finished(outcome):
                registered[task.id] = nil
                switch outcome {
                case let .failure(error): statistics.recordFailure(kind: error.kind)
                case let .success(response) where response.origin == .disk: statistics.recordDiskHit()
                case .success: break
                }
                // Charged before the work that made the image releases its own charge.
                var hold: PixelHold?
                if task.holdsPixels, let pixelBudget, case let .success(response) = outcome { hold = pixelBudget.hold(response.heldPixels) }
                task.finish(outcome, hold: hold)
            }
        }
    }

    func cancel(_ task: ImageTask) {
        guard let subscription = registered.removeValue(forKey: task.id) else { return }
        statistics.recordFailure(kind: "cancelled")
        subscription.cancel()
        checkProbes()
    }

    func priorityChanged(_ task: ImageTask) {
        registered[task.id]?.setPriority(task.priority)
        checkProbes()
    }

    /// A `data(for:)` caller joins the download of its source, or starts it.
    func startData(_ task: DataTask) {
        defer { checkProbes() }
        guard !task.isFinished else { return }
        let request = task.request
        let readsDisk = disk.map { $0.readsOriginal(forData: request) } ?? false
        let key = FetchKey(source: task.sourceKey, readsDisk: readsDisk)
        let writes: Writes = disk?.writesOriginal(forData: request) == true ? .originalOnDisk : []
        dataRegistered[task.id] = joinFetch(key, source: request.source, priority: task.priority, writes: writes, parent: task.span) { [unowned self] event in
            guard case let .finished(outcome) = event else { return }
            dataRegistered[task.id] = nil
            switch outcome {
            case let .success(fetched):
                if fetched.origin == .disk { statistics.recordDiskHit() }
                task.finish(.success(fetched))
            case let .failure(error):
                statistics.recordFailure(kind: error.kind)
                task.finish(.failure(error))
            }
        }
    }

    func cancelData(_ task: DataTask) {
        guard let subscription = dataRegistered.removeValue(forKey: task.id) else { return }
        statistics.recordFailure(kind: "cancelled")
        subscription.cancel()
        checkProbes()
    }

    /// Subscribes to the job for `key` in `table`, or makes one, subscribes, and calls
    /// `start` with it: the one way every stage joins or starts work. Joining counts as
    /// coalesced.
    ///
    /// A new job's span, named `operation`, is a child of `parent` (the subscriber's span); a
    /// subscriber that joins links its span to the job's.
    func join<Key: Hashable, Value: Sendable>(
        _ table: ReferenceWritableKeyPath<PipelineGraph, [Key: Job<Value>]>, key: Key,
        priority: ImageRequest.Priority, writes: Writes, span operation: String, parent: any Span,
        _ handler: @escaping Job<Value>.Handler, start: (Job<Value>) -> Void
    ) -> Subscription {
        if let job = self[keyPath: table][key], let subscription = job.subscribe(priority: priority, writes: writes, handler) {
            statistics.recordCoalesced()
            if parent.isRecording { parent.addLink(SpanLink(context: job.span.context, attributes: ["imagery.coalesced": true])) }
            return subscription
        }
        let job = Job<Value>(span: PipelineTracing.startSpan(operation, parent: parent))
        self[keyPath: table][key] = job
        // A new job takes its first subscriber, so its priority is set, before its work starts.
        let subscription = job.subscribe(priority: priority, writes: writes, handler)!
        job.onCancel = { [unowned self, unowned job] in
            if self[keyPath: table][key] === job { self[keyPath: table][key] = nil }
        }
        start(job)
        return subscription
    }

    /// Removes a job that is about to deliver from its stage's table; `false` when it was
    /// cancelled meanwhile (every subscriber left), so there is nothing to deliver.
    func remove<Key: Hashable, Value: Sendable>(
        _ job: Job<Value>, from table: ReferenceWritableKeyPath<PipelineGraph, [Key: Job<Value>]>, key: Key
    ) -> Bool {
        guard self[keyPath: table][key] === job, !job.isDone else { return false }
        self[keyPath: table][key] = nil
        return true
    }

    /// Whether `request` gets previews while it downloads.
    func wantsPreviews(_ request: ImageRequest) -> Bool {
        request.progressivePreviews ?? previewsByDefault
    }

    /// What `request` asks to have stored, for the stages that store.
    private func writes(for request: ImageRequest) -> Writes {
        var writes: Writes = []
        if !request.options.contains(.skipMemoryCacheWrite), cache != nil { writes.insert(.memory) }
        if let disk {
            if disk.writesProcessed(for: request) { writes.insert(.processedOnDisk) }
            if disk.writesOriginal(for: request) { writes.insert(.originalOnDisk) }
        }
        return writes
    }

    // MARK: - Probes

    /// A condition someone awaits (tests, `ImagePipeline.waitUntilIdle`), checked after every
    /// change to the graph instead of by polling.
    private struct Probe {
        let id: UInt64
        let condition: @PipelineActor (PipelineGraph) -> Bool
        let continuation: CheckedContinuation<Void, Never>
    }

    /// Returns once `condition` holds, or once the calling task is cancelled.
    func waitUntil(_ condition: @escaping @PipelineActor (PipelineGraph) -> Bool) async {
        if condition(self) { return }
        nextProbeID += 1
        let id = nextProbeID
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if Task.isCancelled { continuation.resume() } else { probes.append(Probe(id: id, condition: condition, continuation: continuation)) }
            }
        } onCancel: {
            Task { @PipelineActor in self.dropProbe(id) }
        }
    }

    private func dropProbe(_ id: UInt64) {
        guard let index = probes.firstIndex(where: { $0.id == id }) else { return }
        probes.remove(at: index).continuation.resume()
    }

    func checkProbes() {
        guard !probes.isEmpty else { return }
        var remaining: [Probe] = []
        for probe in probes {
            if probe.condition(self) { probe.continuation.resume() } else { remaining.append(probe) }
        }
        probes = remaining
    }

    /// Disk writes under way. Delivery never waits for them; ``isIdle`` does.
    var pendingDiskWrites = 0

    /// Runs a disk write off the actor at utility priority, counted in ``pendingDiskWrites``
    /// until it ends: the one way both stages that store do it.
    func writeInBackground(_ write: @escaping @Sendable () async -> Void) {
        statistics.recordDiskWrite()
        pendingDiskWrites += 1
        Task.detached(priority: .utility) {
            await write()
            await self.diskWriteFinished()
        }
    }

    private func diskWriteFinished() {
        pendingDiskWrites -= 1
        checkProbes()
    }

    /// Whether no work is queued or running.
    var isIdle: Bool {
        fetchJobs.isEmpty && decodeJobs.isEmpty && processJobs.isEmpty && processingPreviews.isEmpty
            && downloads.running == 0 && decodes.running == 0 && processing.running == 0 && pendingDiskWrites == 0
    }
    /// Downloads waiting for a slot.
    var waitingDownloads: Int { downloads.waitingCount }
    /// Callers registered with a processing job.
    var registeredCount: Int { registered.count }
    /// `data(for:)` callers registered with a fetch job.
    var dataTaskCount: Int { dataRegistered.count }
    /// The queue priority of the download for `sourceKey`, if one is queued or running.
    func downloadPriority(for sourceKey: String) -> ImageRequest.Priority? {
        fetchJobs.first { $0.key.source == sourceKey }?.value.item?.priority
    }
}

extension ImageResponse {
    /// The pixels the response's images hold: every frame of an animation, a stream's poster.
    var heldPixels: Int {
        animation.map { $0.frames.reduce(0) { $0 + $1.image.width * $1.image.height } } ?? image.width * image.height
    }

    /// Whether a cached response may answer `request`: never when its source is larger
    /// than the request's pixel limit, since the request asked to be refused such images.
    func fits(_ request: ImageRequest) -> Bool {
        let original = image.metadata.originalSize
        // A size read back from a disk entry: checked, not trusted.
        let (pixels, overflow) = original.width.multipliedReportingOverflow(by: original.height)
        return !overflow && pixels <= request.maximumPixelCount
    }
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
