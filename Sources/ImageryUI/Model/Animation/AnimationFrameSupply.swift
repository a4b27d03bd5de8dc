import Imagery

/// The frames an ``AnimationPlayer`` plays, in order and round again, within a frame budget.
///
/// - An `AnimatedImage` (every frame decoded by the pipeline, and kept by its memory cache) is
///   played from memory.
/// - An `AnimationStream` whose frames fit the budget is decoded once, a frame at a time as
///   playback reaches it (never more than its frames held), and then played from memory.
/// - A longer stream is decoded as it plays, off the main actor, at most `budget − 1` frames
///   ahead of the one on show, and read again from its first frame on each play: memory stays
///   at `budget` frames whatever the frame count, at the cost of decoding every play.
@MainActor
final class AnimationFrameSupply {
    /// A frame, and whether it is the first of a new play.
    struct Next {
        let frame: AnimationFrame
        let startsPlay: Bool
    }

    /// What the decoding task hands over.
    private enum Delivery: Sendable {
        case frame(AnimationFrame)
        case endOfPlay
        case failed
    }

    /// Every frame, once they are all held.
    private var held: [AnimationFrame]?
    private var position = -1
    /// Frames of the first play kept while decoding, when they fit the budget.
    private var collected: [AnimationFrame]?
    /// Deliveries not yet handed out, at most the budget.
    private var buffered: [Delivery] = []
    private var nextStartsPlay = false
    /// No more deliveries will come.
    private var isExhausted = false
    private var waiter: CheckedContinuation<Void, Never>?
    private var demand: AsyncStream<Void>.Continuation?
    private var decoding: Task<Void, Never>?
    private var receiving: Task<Void, Never>?

    /// Frames played from memory.
    init(frames: [AnimationFrame]) {
        held = frames
    }

    /// Frames decoded from `stream` as they are played, at most `budget` of them held at once
    /// (the one on show counted).
    init(stream: AnimationStream, budget: Int) {
        let budget = max(2, budget)
        let fits = stream.frameCount <= budget
        if fits { collected = [] }
        let (deliveries, output) = AsyncStream.makeStream(of: Delivery.self)
        let (requests, demand) = AsyncStream.makeStream(of: Void.self)
        self.demand = demand
        // The frame on show is one of the budget; the rest may be decoded ahead.
        for _ in 0..<(budget - 1) { demand.yield() }
        decoding = Task.detached(priority: .utility) {
            await Self.decode(stream, once: fits, on: requests, into: output)
        }
        receiving = Task { [weak self] in
            for await delivery in deliveries { self?.accept(delivery) }
            self?.exhausted()
        }
    }

    isolated deinit {
        stop()
    }

    /// Decoded frames held now: every frame once they are all kept, else those decoded ahead
    /// and those of the first play kept so far.
    var framesHeld: Int { held?.count ?? buffered.count + (collected?.count ?? 0) }

    /// Whether every frame is held, so nothing is decoded any more.
    var holdsEveryFrame: Bool { !(held?.isEmpty ?? true) }

    /// Whether ``next()`` would return at once, without waiting for a decode.
    var hasNextReady: Bool {
        held != nil || !buffered.isEmpty
    }

    /// The next frame to show, after the last of a play the first again. `nil` once the frames
    /// ran out for good (the source failed, or ``stop()`` was called), or when the calling task
    /// is cancelled while it waits (the frame then stays for the next call).
    func next() async -> Next? {
        while true {
            if let held {
                guard !held.isEmpty else { return nil }
                position += 1
                var startsPlay = nextStartsPlay
                nextStartsPlay = false
                if position == held.count {
                    position = 0
                    startsPlay = true
                }
                return Next(frame: held[position], startsPlay: startsPlay)
            }
            guard !buffered.isEmpty else {
                guard !isExhausted else { return nil }
                await waitForDelivery()
                if Task.isCancelled { return nil }
                continue
            }
            switch buffered.removeFirst() {
            case let .frame(frame):
                demand?.yield()
                collected?.append(frame)
                defer { nextStartsPlay = false }
                return Next(frame: frame, startsPlay: nextStartsPlay)
            case .endOfPlay:
                demand?.yield()
                if let collected, !collected.isEmpty {
                    // The whole animation fits the budget: keep it, and decode no more.
                    stopDecoding()
                    held = collected
                    self.collected = nil
                    buffered = []
                    position = -1
                }
                nextStartsPlay = true
            case .failed:
                stop()
                return nil
            }
        }
    }

    /// Ends decoding and lets every frame go.
    func stop() {
        stopDecoding()
        isExhausted = true
        if held == nil { held = [] }
        collected = nil
        buffered = []
        wake()
    }

    private func stopDecoding() {
        decoding?.cancel()
        decoding = nil
        receiving?.cancel()
        receiving = nil
        demand?.finish()
        demand = nil
    }

    private func accept(_ delivery: Delivery) {
        buffered.append(delivery)
        wake()
    }

    private func exhausted() {
        isExhausted = true
        wake()
    }

    private func wake() {
        let waiter = self.waiter
        self.waiter = nil
        waiter?.resume()
    }

    /// Returns when a delivery arrives, the deliveries end, or the calling task is cancelled.
    private func waitForDelivery() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                wake()   // one waiter at a time: an earlier one looks again
                if Task.isCancelled { continuation.resume() } else { waiter = continuation }
            }
        } onCancel: {
            // A wake that finds another waiter only makes it look again.
            Task { @MainActor [weak self] in self?.wake() }
        }
    }

    /// Decodes one frame for each request, round the animation again after its last frame
    /// (or, `once`, not: every frame is then kept), until the requests end or the task is
    /// cancelled.
    @concurrent
    private nonisolated static func decode(
        _ stream: AnimationStream, once: Bool, on requests: AsyncStream<Void>, into output: AsyncStream<Delivery>.Continuation
    ) async {
        defer { output.finish() }
        var frames = stream.frames()
        var decodedThisPlay = 0
        for await _ in requests {
            do throws(ImagePipelineError) {
                if let frame = try await frames.next() {
                    decodedThisPlay += 1
                    output.yield(.frame(frame))
                } else if decodedThisPlay == 0 {
                    output.yield(.failed)   // a play with no frame would go round for ever
                    return
                } else {
                    output.yield(.endOfPlay)
                    if once { return }
                    frames = stream.frames()
                    decodedThisPlay = 0
                }
            } catch {
                output.yield(.failed)
                return
            }
        }
    }
}
