import Imagery

/// Counts named events and lets a test await a count instead of sleeping.
package final class EventCounter: Sendable {
    private struct State {
        var counts: [String: Int] = [:]
        var waiters: [(name: String, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
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

    /// Returns once `name` has been recorded at least `count` times.
    package func wait(for name: String, count: Int = 1) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.counts[name, default: 0] >= count { return true }
                state.waiters.append((name, count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
