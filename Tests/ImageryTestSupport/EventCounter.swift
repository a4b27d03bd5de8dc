import Imagery

/// Counts named events and lets a test await a count instead of sleeping.
package final class EventCounter: Sendable {
    private struct Waiter {
        let id: UInt64
        let name: String
        let count: Int
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var counts: [String: Int] = [:]
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    package init() {}

    package func record(_ name: String) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.counts[name, default: 0] += 1
            let now = state.counts[name]!
            let ready = state.waiters.filter { $0.name == name && $0.count <= now }.map(\.continuation)
            state.waiters.removeAll { $0.name == name && $0.count <= now }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    package func count(_ name: String) -> Int { state.withLock { $0.counts[name] ?? 0 } }

    /// Every name recorded so far and its count, for a failure message.
    package var counts: [String: Int] { state.withLock { $0.counts } }

    /// Returns once `name` has been recorded at least `count` times, or when the calling task
    /// is cancelled (a suite's time limit cancels it), and says which.
    @discardableResult
    package func wait(for name: String, count: Int = 1) async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Bool in
                    if state.counts[name, default: 0] >= count || Task.isCancelled { return true }
                    state.waiters.append(Waiter(id: id, name: name, count: count, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
        return self.count(name) >= count
    }
}
