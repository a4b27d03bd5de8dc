import Imagery

/// A download in two parts: the first `split` bytes at once, in 4 KB chunks of its body, then
/// the rest once the test calls ``open()``, or a ``DataLoadingError/cancelled`` if the load is
/// cancelled first. Counts its loads.
package final class SplitLoader: DataLoading {
    private struct State {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextID: UInt64 = 0
        var loads = 0
    }

    private let bytes: [UInt8]
    private let split: Int
    private let state = Locked(State())

    package init(bytes: [UInt8], split: Int) {
        self.bytes = bytes
        self.split = min(split, bytes.count)
    }

    /// The loads started so far.
    package var loads: Int { state.withLock { $0.loads } }

    package func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    package func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        state.withLock { $0.loads += 1 }
        let bytes = self.bytes, split = self.split
        return try await DataResponse.streaming { sink throws(DataLoadingError) in
            sink.begin(expectedLength: Int64(bytes.count))
            func hand(_ range: Range<Int>) async throws(DataLoadingError) {
                var start = range.lowerBound
                while start < range.upperBound {
                    let end = min(start + 4096, range.upperBound)
                    try await sink.send(Array(bytes[start..<end]))
                    start = end
                }
            }
            try await hand(0..<split)
            guard await self.opened() else { throw .cancelled }
            try await hand(split..<bytes.count)
        }
    }

    /// Waits until ``open()``; `false` when cancelled first.
    private func opened() async -> Bool {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let decided = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    if state.isOpen { return true }
                    state.waiters[id] = continuation
                    return nil
                }
                if let decided { continuation.resume(returning: decided) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: false)
        }
    }
}
