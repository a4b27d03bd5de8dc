import Imagery

/// Writes that run after their response has been sent, counted so that a graceful shutdown
/// can wait for them (``drain()``) and a neighbour sharing the store, or the next start, finds
/// what was promised.
final class BackgroundWrites: Sendable {
    private struct State {
        var pending = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// Runs `write` off the caller, at utility priority.
    func run(_ write: @escaping @Sendable () async -> Void) {
        state.withLock { $0.pending += 1 }
        Task.detached(priority: .utility) {
            await write()
            let waiters = self.state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.pending -= 1
                guard state.pending == 0 else { return [] }
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Returns once no write is pending.
    func drain() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state -> Bool in
                guard state.pending > 0 else { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}
