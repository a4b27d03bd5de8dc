import Imagery

/// Plays an animation on the main actor: shows each frame for its duration, against a
/// ``PlaybackClock``, until its loop count is spent or it is paused.
///
/// A stretch of playback schedules every frame against one origin (the durations shown so far
/// added up), so the work between frames never adds up to drift; a pause ends the stretch, and
/// playing again starts a new one on the frame on show, which gets its whole duration again.
/// When the next frame is not decoded in time, the player waits for it and starts a new
/// stretch there, rather than rushing the frames after it to catch up.
@MainActor
final class AnimationPlayer {
    /// The frame on show, `nil` before the first is ready.
    private(set) var frame: AnimationFrame?
    /// Whether the loop count is spent: the last frame stays on show.
    private(set) var isFinished = false
    /// Whole plays completed.
    private(set) var playsCompleted = 0

    let supply: AnimationFrameSupply
    private let loopCount: Int
    private let clock: PlaybackClock
    private let show: @MainActor (AnimationFrame) -> Void
    /// The stretch playing now; `nil` while paused.
    private var task: Task<Void, Never>?
    private var lastRun: Task<Void, Never>?
    /// Stretches started and not yet returned, and who waits for them to end.
    private var runsUnderway = 0
    private var stopWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var stopWaiterSerial = 0
    /// A frame that came as playback paused, shown first when it resumes.
    private var pending: AnimationFrameSupply.Next?

    /// A player of `supply`'s frames, `loopCount` times (0: for ever), that hands each frame to
    /// `show` when its time comes.
    init(supply: AnimationFrameSupply, loopCount: Int, clock: PlaybackClock, show: @escaping @MainActor (AnimationFrame) -> Void) {
        self.supply = supply
        self.loopCount = loopCount
        self.clock = clock
        self.show = show
    }

    var isPlaying: Bool { task != nil }

    /// Starts or resumes playback; does nothing while playing or once finished.
    func play() {
        guard task == nil, !isFinished else { return }
        if let frame { show(frame) }
        // A paused stretch may still be returning: the new one starts after it, so only one
        // ever takes frames.
        let previous = lastRun
        runsUnderway += 1
        let run = Task { [weak self] in
            await previous?.value
            await self?.run()
            self?.runEnded()
        }
        task = run
        lastRun = run
    }

    /// Returns once the stretch playing (or pausing) now has returned, or once the calling task
    /// is cancelled.
    func untilStopped() async {
        guard runsUnderway > 0 else { return }
        stopWaiterSerial += 1
        let id = stopWaiterSerial
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if Task.isCancelled { continuation.resume() } else { stopWaiters[id] = continuation }
            }
        } onCancel: {
            Task { @MainActor [weak self] in self?.stopWaiters.removeValue(forKey: id)?.resume() }
        }
    }

    private func runEnded() {
        runsUnderway -= 1
        guard runsUnderway == 0 else { return }
        let waiters = stopWaiters
        stopWaiters = [:]
        for waiter in waiters.values { waiter.resume() }
    }

    /// Pauses on the frame on show.
    func pause() {
        task?.cancel()
        task = nil
    }

    /// Stops for good, and lets the frames go.
    func stop() {
        pause()
        supply.stop()
    }

    /// How long a frame with `duration` is shown. Browsers show frames stored as 10 ms or less
    /// for 100 ms (files made for old players count on it), and so does this player.
    nonisolated static func displayDuration(_ duration: Duration) -> Duration {
        duration <= .milliseconds(10) ? .milliseconds(100) : duration
    }

    private func run() async {
        if frame == nil {
            guard let first = await nextFrame() else { return }
            present(first.frame)
        }
        // The first frame's time starts once it is on show, not while it was decoded.
        var sleep = clock.start()
        var offset = Duration.zero
        while let current = frame, !Task.isCancelled {
            offset += Self.displayDuration(current.duration)
            do { try await sleep(offset) } catch { return }
            let ready = pending != nil || supply.hasNextReady
            guard let next = await nextFrame() else { return }
            if next.startsPlay {
                playsCompleted += 1
                if loopCount > 0, playsCompleted >= loopCount { return end() }
            }
            if !ready {
                // The frame came late: its time starts now.
                sleep = clock.start()
                offset = .zero
            }
            present(next.frame)
        }
    }

    /// The frame after the one on show; `nil` when playback stops here: paused (the frame, if
    /// it came, is kept for the next stretch) or out of frames (then finished).
    private func nextFrame() async -> AnimationFrameSupply.Next? {
        let next: AnimationFrameSupply.Next?
        if let pending {
            next = pending
            self.pending = nil
        } else {
            next = await supply.next()
        }
        if Task.isCancelled {
            pending = next
            return nil
        }
        if next == nil { end() }
        return next
    }

    private func present(_ frame: AnimationFrame) {
        self.frame = frame
        show(frame)
    }

    private func end() {
        isFinished = true
        task = nil
        supply.stop()
    }
}
