import Imagery

/// Encoded responses by URL and negotiated format, so a hot URL is answered without
/// encoding again, and `If-None-Match` is answered without any work. Least recently used
/// entries leave first once the byte budget is spent.
final class ResponseCache: Sendable {
    struct Entry: Sendable {
        var bytes: [UInt8]
        var contentType: String
        var etag: String
        var varyAccept: Bool
    }

    private struct State {
        var entries: [String: (entry: Entry, lastUse: UInt64)] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }

    // `Locked`, not `Synchronization.Mutex`: TSan cannot see the futex under Mutex and reported
    // these reads and writes as races in CI's TSan run.
    private let state = Locked(State())
    private let budget: Int

    init(budget: Int) {
        self.budget = budget
    }

    subscript(key: String) -> Entry? {
        state.withLock { state in
            guard let found = state.entries[key] else { return nil }
            state.clock += 1
            state.entries[key]?.lastUse = state.clock
            return found.entry
        }
    }

    func store(_ entry: Entry, for key: String) {
        guard entry.bytes.count <= budget / 8 else { return }   // one huge image must not flush the rest
        state.withLock { state in
            state.clock += 1
            if let old = state.entries.updateValue((entry, state.clock), forKey: key) { state.bytes -= old.entry.bytes.count }
            state.bytes += entry.bytes.count
            guard state.bytes > budget else { return }
            // Evict the oldest quarter in one pass, so eviction is rare rather than per store.
            let byAge = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }
            for (key, value) in byAge.prefix(max(1, byAge.count / 4)) {
                state.entries[key] = nil
                state.bytes -= value.entry.bytes.count
            }
        }
    }
}
