import Logging
import Tracing

// Stage 1: one download (or stored-original read) per source.
extension PipelineGraph {
    /// Subscribes to the fetch of `key`, starting it if none is under way.
    /// `feed`, when given, gets the bytes as they arrive if it joins before the download starts.
    func joinFetch(
        _ key: FetchKey, source: ImageSource, priority: ImageRequest.Priority, writes: Writes,
        feed: PreviewFeed? = nil, parent: any Span, _ handler: @escaping Job<Fetched>.Handler
    ) -> Subscription {
        if let feed {
            let fanout = fanouts[key] ?? ChunkFanout()
            fanouts[key] = fanout
            if !fanout.add(feed) { feed.close() }
        }
        return join(\.fetchJobs, key: key, priority: priority, writes: writes, span: "imagery.fetch", parent: parent, handler) { job in
            if job.span.isRecording { PipelineTracing.name(source, on: job.span) }
            let removeJob = job.onCancel
            job.onCancel = { [unowned self] in
                removeJob?()
                if fetchJobs[key] == nil { fanouts[key] = nil }
            }
            if source.isLocal {
                // A local read takes microseconds to milliseconds: it never waits for a
                // download slot, so slow network sources cannot starve it, nor a caller that
                // holds its bytes already wait behind downloads yet to start.
                runFetch(job, key: key, source: source)
            } else {
                job.enqueue(on: downloads) { [unowned self] in runFetch(job, key: key, source: source) }
            }
        }
    }

    private func runFetch(_ job: Job<Fetched>, key: FetchKey, source: ImageSource) {
        let loader = self.loader, statistics = self.statistics, logger = self.logger
        let disk = key.readsDisk ? self.disk : nil
        let relay = ProgressRelay { [weak job] progress in job?.send(progress) }
        let received = fanouts[key]?.start()
        // The loader runs in the fetch's trace, so one that passes the trace on (an HTTP loader
        // injecting `traceparent`) names this job as its parent.
        let context = job.span.context
        job.work = Task(priority: job.priority.taskPriority) {
            let result = await ServiceContext.withValue(context) {
                await Self.load(
                    source, key: key.source, with: loader, disk: disk, statistics: statistics, logger: logger,
                    progress: relay, received: received
                )
            }
            self.fetchFinished(job, key: key, source: source, result)
        }
    }

    /// The original bytes: from the disk tier when the key allows it, else from the loader
    /// (and then stored in the background: delivery never waits for the disk write).
    @concurrent
    private nonisolated static func load(
        _ source: ImageSource,
        key: String,
        with loader: any DataLoading,
        disk: DiskTier?,
        statistics: StatisticsRecorder,
        logger: Logger,
        progress: ProgressRelay,
        received: (@Sendable ([UInt8]) -> Void)?
    ) async -> Result<Fetched, DataLoadingError> {
        if let disk, let bytes = await disk.cache.cachedData(for: key) {
            return .success((bytes, .disk, SourceHeaders()))
        }
        if Task.isCancelled { return .failure(.cancelled) }
        statistics.recordDownload()
        logger.debug("download started", metadata: ["source": "\(source)"])
        do {
            let response = try await loader.response(for: source)
            let bytes = try await response.bytes(progress: { progress.send($0) }, received: received)
            return .success((bytes, .source, response.headers))
        } catch {
            return .failure(error)
        }
    }

    private func fetchFinished(_ job: Job<Fetched>, key: FetchKey, source: ImageSource, _ result: Result<Fetched, DataLoadingError>) {
        defer { checkProbes() }
        // The download slot is returned after the bytes have been handed to their decodes, so
        // the downloads' backpressure sees them waiting when it decides what starts next.
        defer { job.workFinished() }
        if fetchJobs[key] === job { fanouts[key] = nil }
        guard remove(job, from: \.fetchJobs, key: key) else {
            logger.debug("download cancelled: no caller is waiting", metadata: ["source": "\(source)"])
            return
        }
        switch result {
        case let .success(fetched):
            if fetched.origin == .source {
                statistics.recordBytes(fetched.bytes.count)
                logger.debug("download finished", metadata: ["source": "\(source)", "bytes": "\(fetched.bytes.count)"])
                if job.writes.contains(.originalOnDisk) { storeOriginal(fetched.bytes, key: key.source) }
            }
            job.finish(.success(fetched))
        case let .failure(error):
            logger.debug("download failed", metadata: ["source": "\(source)", "error": "\(error)"])
            job.finish(.failure(error == .cancelled ? .cancelled : .loadingFailed(error)))
        }
    }

    private func storeOriginal(_ bytes: [UInt8], key: String) {
        guard let disk else { return }
        writeInBackground { await disk.cache.storeData(bytes, for: key) }
    }
}
