/// The time an ``AnimationPlayer`` keeps: any `Clock` whose durations are `Duration`, so an app
/// plays on `ContinuousClock` and a test on a clock it advances by hand.
///
/// Frames are scheduled against one origin per playing stretch (origin + the durations shown so
/// far), not one `sleep(for:)` after another, so the time spent swapping frames never adds up to
/// drift.
struct PlaybackClock: Sendable {
    /// Starts a stretch of playback now; the function it returns sleeps until `offset` after that
    /// start, and throws `CancellationError` when its task is cancelled.
    let start: @Sendable () -> @Sendable (_ offset: Duration) async throws -> Void

    init<C: Clock>(_ clock: C) where C.Duration == Duration {
        start = {
            let origin = clock.now
            return { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
        }
    }
}
