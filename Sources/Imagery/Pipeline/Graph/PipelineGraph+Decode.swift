import Logging
import Tracing

// Stage 2: one decode (and resize) per source and decode options.
extension PipelineGraph {
    /// Subscribes to the decode of `key`, starting it (and joining its fetch) if none is
    /// under way.
    /// With `previews`, a new job asks its download for the bytes as they arrive and sends
    /// previews of them (if the decoder makes any) until the download ends.
    func joinDecode(
        _ key: DecodeKey, source: ImageSource, priority: ImageRequest.Priority, writes: Writes, previews: Bool,
        parent: any Span, _ handler: @escaping Job<Decoded>.Handler
    ) -> Subscription {
        join(\.decodeJobs, key: key, priority: priority, writes: writes, span: "imagery.decode", parent: parent, handler) { job in
            let feed = previews ? previewFeed(for: key, job: job) : nil
            if let feed {
                let removeJob = job.onCancel
                job.onCancel = { [unowned self] in
                    removeJob?()
                    feed.close()
                    fanouts[key.fetch]?.remove(feed)   // the download may go on for others
                }
            }
            job.dependency = joinFetch(key.fetch, source: source, priority: job.priority, writes: job.writes, feed: feed, parent: job.span) { [unowned self] event in
                switch event {
                case let .progress(progress):
                    job.send(progress)
                case .preview:
                    break
                case let .finished(.success(fetched)):
                    // The bytes are all here: the feed's decoder and its memory go before the
                    // final decode needs its own.
                    feed?.close()
                    job.dependency = nil
                    let cost = pixelBudget == nil ? 0 : key.decodingCost(of: fetched.bytes)
                    // Larger than the budget, it would run alone; larger than the ceiling, never.
                    if let refusal = pixelBudget?.refusal(of: cost, for: "the image") {
                        if remove(job, from: \.decodeJobs, key: key) { job.finish(.failure(.processingFailed(source: source.description, refusal))) }
                        return
                    }
                    job.enqueue(on: decodes, cost: cost) { [unowned self] in
                        runDecode(job, key: key, source: source, fetched: fetched)
                    }
                case let .finished(.failure(error)):
                    feed?.close()
                    if remove(job, from: \.decodeJobs, key: key) { job.finish(.failure(error)) }
                }
            }
        }
    }

    /// A feed of previews at `key`'s size for `job`, when the decoder makes them.
    private func previewFeed(for key: DecodeKey, job: Job<Decoded>) -> PreviewFeed? {
        let requested = key.decodeOptions
        guard let decoder = decoder.progressiveDecoder(resize: requested.resize, allowsUpscaling: requested.allowsUpscaling, options: key.codecOptions) else {
            return nil
        }
        return PreviewFeed(decoder: decoder, resize: requested.resize, allowsUpscaling: requested.allowsUpscaling, interval: previewInterval) { [weak job] preview in
            Task { @PipelineActor in job?.send(preview: preview) }
        }
    }

    private func runDecode(_ job: Job<Decoded>, key: DecodeKey, source: ImageSource, fetched: Fetched) {
        let decoder = self.decoder
        job.work = Task(priority: job.priority.taskPriority) {
            let result = await Self.decode(fetched.bytes, key: key, source: source.description, decoder: decoder, origin: fetched.origin)
                .map { $0.carrying(fetched.headers) }
            self.decodeFinished(job, key: key, source: source, result)
        }
    }

    /// Decodes `bytes` as `key` asks, or as they are when `key` has no resize; every frame
    /// (or a stream of them, with its first) when `key` asks for animation and the source has
    /// more than one.
    @concurrent
    nonisolated static func decode(
        _ bytes: [UInt8], key: DecodeKey, source: String, decoder: any ImageDecoding, origin: ImageResponse.Origin
    ) async -> Result<Decoded, ImagePipelineError> {
        // Cancellation is honoured between stages: before the decode, and before the result
        // is handed back (a decode itself is not interruptible).
        if Task.isCancelled { return .failure(.cancelled) }
        let options = key.codecOptions, requested = key.decodeOptions
        do throws(ImageError) {
            var decoded = try await ImagePipeline.runHeavyWork { () throws(ImageError) -> Decoded in
                switch requested.animation?.delivery {
                case .frames?:
                    if let animation = try decoder.decodeAnimation(bytes, resize: requested.resize, allowsUpscaling: requested.allowsUpscaling, options: options) {
                        return ImageResponse(animation: animation, origin: origin)
                    }
                case .stream?:
                    if var stream = try decoder.animationStream(bytes, resize: requested.resize, allowsUpscaling: requested.allowsUpscaling, options: options) {
                        stream.source = source
                        return ImageResponse(stream: stream, origin: origin)
                    }
                case nil:
                    break
                }
                let bitmap = if let resize = requested.resize {
                    try decoder.decode(bytes, resize: resize, allowsUpscaling: requested.allowsUpscaling, options: options)
                } else {
                    try decoder.decode(bytes, options: options)
                }
                return ImageResponse(image: bitmap, origin: origin)
            }
            if Task.isCancelled { return .failure(.cancelled) }
            // Only the pipeline knows what it read; processing carries metadata through.
            decoded.image.metadata.sourceByteCount = bytes.count
            return .success(decoded)
        } catch let .invalidRequest(detail) {
            return .failure(.processingFailed(source: source, .invalidRequest(detail)))
        } catch {
            return .failure(.decodingFailed(source: source, error))
        }
    }

    private func decodeFinished(_ job: Job<Decoded>, key: DecodeKey, source: ImageSource, _ result: Result<Decoded, ImagePipelineError>) {
        defer { checkProbes() }
        // After delivery: what the image holds next (a processing input, a caller's hold) is
        // charged before this decode's charge is released, so no other decode starts between.
        defer { job.workFinished() }
        guard remove(job, from: \.decodeJobs, key: key) else { return }
        if case let .failure(error) = result {
            logger.debug("decode failed", metadata: ["source": "\(source)", "error": "\(error)"])
        } else {
            statistics.recordDecode()
        }
        // The runs it feeds, for their charges while they are told (processingCharge).
        decodeSharers[key] = job.subscriberCount
        defer { decodeSharers[key] = nil }
        job.finish(result)
    }
}
