import Logging
import Tracing

// Stage 3: one processing run per decode and processors, with the processed-image disk
// tier and the memory-cache write.
extension PipelineGraph {
    /// Subscribes to the processed image for `request`, starting the run (and whatever it
    /// needs upstream) if none is under way.
    func joinProcess(
        _ request: ImageRequest, key: ImageCacheKey, priority: ImageRequest.Priority, writes: Writes,
        parent: any Span, _ handler: @escaping Job<ImageResponse>.Handler
    ) -> Subscription {
        let readsOriginal = disk?.readsOriginal(for: request) ?? false
        let decodeKey = DecodeKey(
            fetch: FetchKey(source: key.sourceKey, readsDisk: readsOriginal), decodeOptions: key.decodeOptions,
            maximumPixelCount: request.maximumPixelCount, draftHeadroom: draftHeadroom,
            reducesWhileDecoding: reducesWhileDecoding, resizesInLinearLight: resizesInLinearLight
        )
        let processKey = ProcessKey(image: key, decode: decodeKey, readsDisk: disk?.readsProcessed(for: request) ?? false)
        return join(\.processJobs, key: processKey, priority: priority, writes: writes, span: "imagery.process", parent: parent, handler) { job in
            let run = ProcessRun(key: processKey, request: request)
            if let disk, processKey.readsDisk {
                lookUpProcessed(job, run, in: disk)
            } else {
                attachDecode(job, run)
            }
        }
    }

    /// What a processing job needs to know about its work, captured from the first caller.
    /// Everything in it that changes the result is part of the job's key.
    struct ProcessRun: Sendable {
        let key: ProcessKey
        let request: ImageRequest
        var source: ImageSource { request.source }
    }

    private func attachDecode(_ job: Job<ImageResponse>, _ run: ProcessRun) {
        let previews = wantsPreviews(run.request)
        job.dependency = joinDecode(run.key.decode, source: run.source, priority: job.priority, writes: job.writes, previews: previews, parent: job.span) { [unowned self] event in
            switch event {
            case let .progress(progress):
                job.send(progress)
            case let .preview(preview):
                if previews { processPreview(preview, for: job, run) }
            case let .finished(.success(decoded)):
                job.dependency = nil
                if run.request.processors.isEmpty {
                    complete(job, run, .success(decoded), stored: false)
                } else {
                    let charge = processingCharge(decoded, run)
                    // A run that shares its input works on a copy, beside the original the
                    // others keep: alone, it holds both.
                    let peak = charge.held + charge.cost + ((decodeSharers[run.key.decode] ?? 1) > 1 ? charge.held : 0)
                    // As a decode is: larger than the budget, it would run alone; larger than the ceiling, never.
                    if let refusal = pixelBudget?.refusal(of: peak, for: "processing") {
                        return complete(job, run, .failure(.processingFailed(source: run.source.description, refusal)), stored: false)
                    }
                    let handoff = Locked<Decoded?>(decoded)
                    job.enqueue(on: processing, cost: charge.cost, held: charge.held) { [unowned self] in runProcessors(job, run, on: handoff) }
                }
            case let .finished(.failure(error)):
                complete(job, run, .failure(error), stored: false)
            }
        }
    }

    /// Sends `preview` on, processed as the image will be. One preview at a time is processed
    /// per job: those that come meanwhile are dropped, since a newer one follows.
    private func processPreview(_ preview: Bitmap, for job: Job<ImageResponse>, _ run: ProcessRun) {
        guard !run.request.processors.isEmpty else { return job.send(preview: preview) }
        let id = ObjectIdentifier(job)
        guard !processingPreviews.contains(id) else { return }
        processingPreviews.insert(id)
        Task(priority: job.priority.taskPriority) {
            let result = await Self.processPreview(preview, run: run)
            self.processingPreviews.remove(id)
            if case let .success(processed) = result { job.send(preview: processed) }
            self.checkProbes()
        }
    }

    @concurrent
    private nonisolated static func processPreview(_ preview: Bitmap, run: ProcessRun) async -> Result<Bitmap, ImagePipelineError> {
        await ImagePipeline.runHeavyWork { await processAll(preview, run: run) }
    }

    /// What a processing run of `decoded` is charged: its input, from the moment it waits (each
    /// run's own, since a run that changes its input in place copies one it shares), and what
    /// the processors add to it, for every frame of an animation.
    private func processingCharge(_ decoded: Decoded, _ run: ProcessRun) -> (held: Int, cost: Int) {
        guard processing.budget != nil else { return (0, 0) }
        let frames = decoded.animation?.frames.map(\.image) ?? [decoded.image]
        var charge = (held: 0, cost: 0)
        for frame in frames {
            let input = PixelSize(width: frame.width, height: frame.height)
            charge.held = min(charge.held + input.pixelCount, ProcessingFootprint.ceiling)
            charge.cost = min(charge.cost + max(0, run.request.processors.footprint(for: input).peak - input.pixelCount), ProcessingFootprint.ceiling)
        }
        return charge
    }

    /// Runs the processors on the image `handoff` passes to the run, which then holds the only
    /// reference to it (the queue's item keeps only the emptied box): processors that work in
    /// place change it without a copy.
    private func runProcessors(_ job: Job<ImageResponse>, _ run: ProcessRun, on handoff: Locked<Decoded?>) {
        job.work = Task(priority: job.priority.taskPriority) {
            let result = await Self.process(handoff, run: run)
            if case .failure(.cancelled) = result {} else { self.statistics.recordProcessing() }
            self.complete(job, run, result, stored: false)
            // After delivery, as for a decode: a caller's hold is charged before this run's charge goes.
            job.workFinished()
            self.checkProbes()   // the run has left its queue: a wait for idle may end now
        }
    }

    /// Runs the processors in order, off the actor, on every frame of an animation (on a
    /// stream's poster, and on its other frames when they are read); cancellation is honoured between them (and inside any async processor that checks it).
    @concurrent
    private nonisolated static func process(_ handoff: Locked<Decoded?>, run: ProcessRun) async -> Result<Decoded, ImagePipelineError> {
        // On the heavy-work threads, async processors included: they suspend there, not on the pool.
        await ImagePipeline.runHeavyWork { () async -> Result<Decoded, ImagePipelineError> in
            guard let decoded = handoff.withLock({ value -> Decoded? in
                defer { value = nil }
                return value
            }) else { return .failure(.cancelled) }
            if let stream = decoded.animationStream {
                // The poster now; every other frame when the stream is read.
                return await processAll(decoded.image, run: run).map { poster in
                    let context = ImageProcessingContext(request: run.request)
                    return ImageResponse(stream: stream.processed(by: run.request.processors, context: context, poster: poster), origin: decoded.origin)
                        .carrying(decoded.sourceHeaders)
                }
            }
            guard let animation = decoded.animation else {
                let origin = decoded.origin, sourceHeaders = decoded.sourceHeaders
                return await processAll((consume decoded).image, run: run).map { ImageResponse(image: $0, origin: origin).carrying(sourceHeaders) }
            }
            var frames: [AnimationFrame] = []
            for frame in animation.frames {
                switch await processAll(frame.image, run: run) {
                case let .success(image): frames.append(AnimationFrame(image: image, duration: frame.duration))
                case let .failure(error): return .failure(error)
                }
            }
            do throws(ImageError) {
                return .success(
                    ImageResponse(animation: try AnimatedImage(frames: frames, loopCount: animation.loopCount), origin: decoded.origin)
                        .carrying(decoded.sourceHeaders)
                )
            } catch {
                // A processor that sizes frames by their content (a trim) gave them different sizes.
                return .failure(.processingFailed(source: run.source.description, error))
            }
        }
    }

    /// Runs the processors on `image`; those that work in place change it without a copy
    /// when the caller gave up its own reference.
    private nonisolated static func processAll(_ image: consuming Bitmap, run: ProcessRun) async -> Result<Bitmap, ImagePipelineError> {
        let context = ImageProcessingContext(request: run.request)
        for processor in run.request.processors {
            if Task.isCancelled { return .failure(.cancelled) }
            do throws(ImageError) {
                if let inPlace = processor as? any InPlaceImageProcessing {
                    try inPlace.process(&image)
                } else {
                    image = try await processor.process(image, context: context)
                }
            } catch {
                if Task.isCancelled { return .failure(.cancelled) }
                return .failure(.processingFailed(source: run.source.description, error))
            }
        }
        if Task.isCancelled { return .failure(.cancelled) }
        return .success(image)
    }

    /// Delivers the result: stores it in memory and on disk as the callers asked, then
    /// finishes the job. `stored` results came from the processed tier and are not stored again.
    private func complete(_ job: Job<ImageResponse>, _ run: ProcessRun, _ result: Result<ImageResponse, ImagePipelineError>, stored: Bool) {
        defer { checkProbes() }
        guard remove(job, from: \.processJobs, key: run.key) else { return }
        switch result {
        case let .success(response):
            // The cache stores it as a memory response, so a hit is returned as it is.
            if job.writes.contains(.memory) { cache?[run.key.image] = response }
            // The processed tier stores stills: an animation is kept in memory, and its source on disk.
            if !stored, !response.isAnimated, job.writes.contains(.processedOnDisk), let disk, disk.keepsProcessed(for: run.request) {
                storeProcessed(response.image, key: run.key.image.processedDataKey, in: disk)
            }
        case let .failure(error):
            if error != .cancelled {
                logger.debug("processing failed", metadata: ["source": "\(run.source)", "error": "\(error)"])
            }
        }
        job.finish(result)
    }

    // MARK: - The processed-image disk tier

    /// Looks for the processed image on disk (off the actor); a miss goes on to the decode.
    private func lookUpProcessed(_ job: Job<ImageResponse>, _ run: ProcessRun, in disk: DiskTier) {
        let key = run.key.image.processedDataKey
        job.work = Task(priority: job.priority.taskPriority) {
            let entry = await Self.read(key, from: disk)
            job.work = nil
            guard self.processJobs[run.key] === job, !job.isDone else { return }   // every caller left meanwhile
            if let entry {
                // The entry's header is read back from disk: its product is checked, and capped as every cost is.
                let size = self.pixelBudget == nil ? nil : ImageHeader.size(of: entry.image)
                let cost = size.map { $0.width.multipliedReportingOverflow(by: $0.height) }.map { $0.overflow ? 1 << 50 : min($0.partialValue, 1 << 50) } ?? 0
                job.enqueue(on: self.decodes, cost: cost) { [unowned self] in decodeStored(job, run, entry) }
            } else {
                self.attachDecode(job, run)
            }
        }
    }

    @concurrent
    private nonisolated static func read(_ key: String, from disk: DiskTier) async -> ProcessedEntry? {
        await disk.cache.cachedData(for: key).flatMap(ProcessedEntry.init(stored:))
    }

    /// Decodes a stored processed image as it is (it is already at the requested size and
    /// processed), with the original's metadata restored.
    private func decodeStored(_ job: Job<ImageResponse>, _ run: ProcessRun, _ entry: ProcessedEntry) {
        var key = run.key.decode
        key.decodeOptions.resize = nil
        key.decodeOptions.animation = nil
        let decoder = self.decoder, source = run.source.description
        job.work = Task(priority: job.priority.taskPriority) {
            let decoded = await Self.decode(entry.image, key: key, source: source, decoder: decoder, origin: .disk)
            switch decoded {
            case var .success(response):
                response.image.metadata = entry.restoring(response.image.metadata)
                self.statistics.recordDecode()
                self.complete(job, run, .success(response), stored: true)
                job.workFinished()   // after delivery, as for a decode of the source
                self.checkProbes()
            case .failure(.cancelled):
                job.workFinished()
                self.complete(job, run, .failure(.cancelled), stored: true)
            case let .failure(error):
                job.workFinished()
                // A stored entry that no longer decodes is not served: load it afresh.
                self.logger.debug("stored processed image unreadable", metadata: ["source": "\(run.source)", "error": "\(error)"])
                guard self.processJobs[run.key] === job, !job.isDone else { return }
                self.attachDecode(job, run)
            }
        }
    }

    private func storeProcessed(_ bitmap: Bitmap, key: String, in disk: DiskTier) {
        guard let encoder = disk.encoder else { return }
        writeInBackground {
            if let bytes = try? await ImagePipeline.runHeavyWork({ () throws(ImageError) in try encoder.encode(bitmap) }) {
                await disk.cache.storeData(ProcessedEntry(image: bytes, metadata: bitmap.metadata).stored, for: key)
            }
        }
    }
}
