import Imagery

/// Stops asking a dependency that keeps failing, so that a store that is down or silent costs a
/// request nothing instead of its whole timeout.
///
/// Closed, every call goes through; `failureThreshold` failures in a row open it. Open, calls
/// are refused until `cooldown` has passed; then one call at a time is let through as a probe,
/// and its success closes the breaker while its failure opens it for another cooldown. A probe
/// that never reports (its caller cancelled) is replaced once a cooldown has passed.
///
/// Deciding takes a lock and never suspends: it sits on every request's path.
final class CircuitBreaker: Sendable {
    private enum State {
        case closed(failures: Int)
        case open(until: ContinuousClock.Instant)
        case probing(since: ContinuousClock.Instant)
    }

    let failureThreshold: Int
    let cooldown: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    // Not Mutex: TSan cannot see its futex.
    private let state = Locked(State.closed(failures: 0))

    /// A breaker that opens after `failureThreshold` failures in a row, for `cooldown`, on the
    /// clock `now` (tests inject one they move).
    init(failureThreshold: Int = 5, cooldown: Duration = .seconds(30), now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.failureThreshold = max(1, failureThreshold)
        self.cooldown = cooldown
        self.now = now
    }

    /// Whether a call may go through now. A `true` from an open breaker makes the caller its
    /// probe, which must report its outcome.
    func allowsCall() -> Bool {
        let now = now()
        return state.withLock { state in
            switch state {
            case .closed:
                return true
            case let .open(until):
                guard now >= until else { return false }
                state = .probing(since: now)
                return true
            case let .probing(since):
                guard now >= since + cooldown else { return false }
                state = .probing(since: now)
                return true
            }
        }
    }

    /// A call succeeded: the breaker closes.
    func recordSuccess() {
        state.withLock { $0 = .closed(failures: 0) }
    }

    /// A call failed. Returns `true` when this failure opened the breaker, for the caller to
    /// say so once rather than on every refused call.
    @discardableResult
    func recordFailure() -> Bool {
        let now = now()
        return state.withLock { state in
            switch state {
            case let .closed(failures) where failures + 1 < failureThreshold:
                state = .closed(failures: failures + 1)
                return false
            case .closed, .probing:
                state = .open(until: now + cooldown)
                return true
            case .open:
                return false   // a call begun before the breaker opened
            }
        }
    }

    /// Whether calls are being refused now (for `/metrics` and logs).
    var isOpen: Bool {
        state.withLock { if case .closed = $0 { false } else { true } }
    }
}
