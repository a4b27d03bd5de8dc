import Imagery
import NIOCore
import ImageryImgproxy

/// Encoded responses in memory by ``ResponseVariantKey``, so a hot URL is answered without
/// encoding again, and `If-None-Match` without any work. Least recently used entries leave
/// first once the byte budget is spent, and the bodies kept never exceed it; a response over an
/// eighth of the budget is not kept at all.
final class ResponseCache: Sendable {
    private struct State {
        var entries: [ResponseVariantKey: (entry: CachedResponse, lastUse: UInt64)] = [:]
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

    subscript(key: ResponseVariantKey) -> CachedResponse? {
        state.withLock { state in
            guard let index = state.entries.index(forKey: key) else { return nil }
            state.clock += 1
            state.entries.values[index].lastUse = state.clock
            return state.entries.values[index].entry
        }
    }

    func store(_ entry: CachedResponse, for key: ResponseVariantKey) {
        let size = entry.body.readableBytes
        guard size <= budget / 8 else { return }   // one huge image must not flush the rest
        state.withLock { state in
            state.clock += 1
            if let old = state.entries.updateValue((entry, state.clock), forKey: key) { state.bytes -= old.entry.body.readableBytes }
            state.bytes += size
            guard state.bytes > budget else { return }
            // Evict the oldest quarter in one pass, so eviction is rare rather than per store, and
            // on until the rest fits: a quarter of small entries may not make room for a large one.
            let byAge = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }
            for (index, (key, value)) in byAge.enumerated() {
                guard index < max(1, byAge.count / 4) || state.bytes > budget else { break }
                state.entries[key] = nil
                state.bytes -= value.entry.body.readableBytes
            }
        }
    }

    /// The bytes of the bodies kept.
    var bytes: Int { state.withLock { $0.bytes } }
}
