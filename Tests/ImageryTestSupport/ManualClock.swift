import Imagery

/// A clock that moves only when a test says so: animation playback and other timed behaviour
/// are tested without real time, and without sleeping to wait for anything.
///
/// ```swift
/// let clock = ManualClock()
/// let model = ImageModel(pipeline: pipeline, playbackClock: clock)
/// await clock.untilSleeping()             // the player waits for its next frame
/// clock.advance(by: .milliseconds(100))    // …which is now due
/// ```
package final class ManualClock: Clock, Sendable {
    package struct Instant: InstantProtocol, Hashable, Sendable {
        package var offset: Duration
        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let id: UInt64
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID: UInt64 = 0
        /// Tests waiting for sleeps, each with how many it waits for.
        var watchers: [UInt64: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
    }

    private let state = Locked(State())

    package init() {}

    package var now: Instant { state.withLock { $0.now } }
    package var minimumResolution: Duration { .zero }

    /// How many sleeps are waiting for the clock to move.
    package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    package func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= state.now || Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let count = state.sleepers.count
                    let ready = state.watchers.filter { $0.value.count <= count }
                    for id in ready.keys { state.watchers[id] = nil }
                    return (false, ready.values.map(\.continuation))
                }
                for watcher in watchers { watcher.resume() }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on by `duration` and wakes every sleep whose deadline it reached,
    /// earliest first.
    package func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` sleeps wait for the clock (one per player, for several
    /// players on one clock), or once the calling task is cancelled (a suite's time limit then
    /// ends the test).
    package func untilSleeping(count: Int = 1) async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.sleepers.count >= count || Task.isCancelled { return true }
                    state.watchers[id] = (count, continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            // Whoever removes the watcher resumes it: a sleep arriving meanwhile, or this.
            state.withLock { $0.watchers.removeValue(forKey: id) }?.continuation.resume()
        }
    }
}
