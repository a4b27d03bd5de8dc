/// Turns the bytes of a download into previews while it runs, for one decode job that asked
/// for them: the loader hands it bytes on its own thread, and one task at a time, on the
/// heavy-work threads, feeds them to the ``ProgressiveDecoding`` and asks it for a preview at
/// most once an interval. Nothing here runs on the pipeline's actor, and a loader never waits
/// for a decode: bytes that arrive meanwhile wait in a list.
final class PreviewFeed: Sendable {
    private struct State {
        var pending: [[UInt8]] = []
        var isDraining = false
        var isClosed = false
        /// Whoever turns this on, under the lock, lets the decoder go: exactly one caller.
        var isReleased = false
        var lastPreview: ContinuousClock.Instant?

        /// Claims the release of the decoder: closed, no drain using it, not released yet.
        mutating func claimRelease() -> Bool {
            guard isClosed, !isDraining, !isReleased else { return false }
            isReleased = true
            return true
        }
    }

    /// The decoder, touched only by the one task draining (``State/isDraining`` is set under
    /// the lock before a drain starts and cleared when it ends), and let go once by whoever
    /// claims it under the lock (``State/claimRelease()``).
    // @unchecked Sendable: only the one draining task, admitted under the feed's lock, touches it.
    private final class DecoderBox: @unchecked Sendable {
        var decoder: (any ProgressiveDecoding)?
        init(_ decoder: any ProgressiveDecoding) { self.decoder = decoder }
    }

    private let state = Locked(State())
    private let box: DecoderBox
    private let resize: Resize?
    private let allowsUpscaling: Bool
    private let interval: Duration
    private let deliver: @Sendable (Bitmap) -> Void

    init(
        decoder: any ProgressiveDecoding, resize: Resize?, allowsUpscaling: Bool, interval: Duration,
        deliver: @escaping @Sendable (Bitmap) -> Void
    ) {
        self.box = DecoderBox(decoder)
        self.resize = resize
        self.allowsUpscaling = allowsUpscaling
        self.interval = interval
        self.deliver = deliver
    }

    /// The next bytes of the download.
    func receive(_ bytes: [UInt8]) {
        let start = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            state.pending.append(bytes)
            guard !state.isDraining else { return false }
            state.isDraining = true
            return true
        }
        guard start else { return }
        Task.detached(priority: .utility) { await self.drain() }
    }

    /// No more previews: the download ended or nobody waits. The decoder and its memory go now,
    /// or when the drain under way (one preview's work at most) ends.
    func close() {
        let release = state.withLock { state -> Bool in
            state.isClosed = true
            state.pending = []
            return state.claimRelease()
        }
        if release { box.decoder = nil }
    }

    @concurrent
    private func drain() async {
        await ImagePipeline.runHeavyWork { () async -> Void in
            while let batch = nextBatch() {
                guard let decoder = box.decoder else { continue }
                do throws(ImageError) {
                    for bytes in batch { try decoder.append(bytes) }
                    guard isDue(), let preview = try decoder.preview() else { continue }
                    var sized = preview
                    if let resize { sized = try preview.resized(resize, allowsUpscaling: allowsUpscaling) }
                    let open = state.withLock { state -> Bool in
                        state.lastPreview = .now
                        return !state.isClosed
                    }
                    if open { deliver(sized) }
                } catch {
                    // Damaged or over a limit: no more previews; the final decode says why.
                    close()
                }
            }
        }
    }

    /// The bytes that arrived since the last batch; `nil` ends the drain (and, once closed,
    /// lets the decoder go).
    private func nextBatch() -> [[UInt8]]? {
        let (batch, release) = state.withLock { state -> ([[UInt8]]?, Bool) in
            guard !state.isClosed, !state.pending.isEmpty else {
                state.isDraining = false
                return (nil, state.claimRelease())
            }
            defer { state.pending = [] }
            return (state.pending, false)
        }
        if release { box.decoder = nil }
        return batch
    }

    private func isDue() -> Bool {
        state.withLock { state in state.lastPreview.map { ContinuousClock.now - $0 >= interval } ?? true }
    }
}

/// Hands a download's bytes to the preview feeds of the decode jobs waiting for it. Feeds join
/// before the download starts; one that comes later would miss its first bytes, and gets none.
final class ChunkFanout: Sendable {
    private struct State {
        var feeds: [ObjectIdentifier: PreviewFeed] = [:]
        var started = false
    }

    private let state = Locked(State())

    /// Adds `feed`; `false` once the download has started.
    func add(_ feed: PreviewFeed) -> Bool {
        state.withLock { state in
            guard !state.started else { return false }
            state.feeds[ObjectIdentifier(feed)] = feed
            return true
        }
    }

    func remove(_ feed: PreviewFeed) {
        state.withLock { _ = $0.feeds.removeValue(forKey: ObjectIdentifier(feed)) }
    }

    /// Marks the download started; the closure to hand its bytes to, or `nil` when no feed
    /// joined (the loader then keeps no chunks apart).
    func start() -> (@Sendable ([UInt8]) -> Void)? {
        let any = state.withLock { state -> Bool in
            state.started = true
            return !state.feeds.isEmpty
        }
        guard any else { return nil }
        return { [self] bytes in
            let feeds = state.withLock { Array($0.feeds.values) }
            for feed in feeds { feed.receive(bytes) }
        }
    }
}
