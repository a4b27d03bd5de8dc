import Imagery

/// A download in two parts: the first `split` bytes at once, in 4 KB runs (each handed to
/// `received` and reported as progress), then the rest once the test calls ``open()``, or a
/// ``DataLoadingError/cancelled`` if the load is cancelled first. Records whether the pipeline
/// asked for the bytes as they arrive.
package final class SplitLoader: DataLoading {
    private struct State {
        var isOpen = false
        var waiters: [UInt64: CheckedContinuation<Bool, Never>] = [:]
        var nextID: UInt64 = 0
        var askedForBytes: [Bool] = []
    }

    private let bytes: [UInt8]
    private let split: Int
    private let state = Locked(State())

    package init(bytes: [UInt8], split: Int) {
        self.bytes = bytes
        self.split = min(split, bytes.count)
    }

    /// For each load so far, whether it was given a `received` closure.
    package var askedForBytes: [Bool] { state.withLock { $0.askedForBytes } }

    package func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.isOpen = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    package func loadData(for source: ImageSource, progress: @escaping @Sendable (DataProgress) -> Void) async throws(DataLoadingError) -> [UInt8] {
        try await loadData(for: source, progress: progress, received: nil)
    }

    package func loadData(
        for source: ImageSource,
        progress: @escaping @Sendable (DataProgress) -> Void,
        received: (@Sendable ([UInt8]) -> Void)?
    ) async throws(DataLoadingError) -> [UInt8] {
        state.withLock { $0.askedForBytes.append(received != nil) }
        let total = Int64(bytes.count)
        func hand(_ range: Range<Int>) {
            var start = range.lowerBound
            while start < range.upperBound {
                let end = min(start + 4096, range.upperBound)
                received?(Array(bytes[start..<end]))
                progress(DataProgress(completed: Int64(end), total: total))
                start = end
            }
        }
        hand(0..<split)
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        let proceed = await withTaskCancellationHandler {
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
        guard proceed else { throw .cancelled }
        hand(split..<bytes.count)
        return bytes
    }
}
