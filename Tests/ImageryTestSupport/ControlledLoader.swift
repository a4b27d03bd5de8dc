import Imagery

/// A suspendable loader: every load of a `custom` source records that it started, then waits
/// until the test releases it (or cancels it), then returns the bytes the test registered.
/// Records `started:<id>`, `cancelled:<id>` and `finished:<id>` in ``events``.
package final class ControlledLoader: DataLoading {
    package let events = EventCounter()
    private struct State {
        var released: Set<String> = []
        var releaseAll = false
        var waiting: [String: [CheckedContinuation<Bool, Never>]] = [:]
        var order: [String] = []
    }

    private let state = Locked(State())
    private let bytes: @Sendable (String) -> [UInt8]

    package init(bytes: @escaping @Sendable (String) -> [UInt8] = { _ in Fixtures.rocket }) {
        self.bytes = bytes
    }

    /// The ids in the order their loads started.
    package var startOrder: [String] { state.withLock { $0.order } }

    package func release(_ id: String) {
        let waiters = state.withLock { state in
            state.released.insert(id)
            return state.waiting.removeValue(forKey: id) ?? []
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Holds the next loads of `id` again, after a ``release(_:)``.
    package func hold(_ id: String) {
        state.withLock { _ = $0.released.remove(id) }
    }

    /// Releases every current and future load.
    package func releaseAll() {
        let waiters = state.withLock { state in
            state.releaseAll = true
            defer { state.waiting = [:] }
            return state.waiting.values.flatMap { $0 }
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    package func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        guard case let .custom(id, _) = source.kind else { throw .unsupportedSource(source.description) }
        state.withLock { $0.order.append(id) }
        events.record("started:\(id)")
        let proceed = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // Decided under the lock that `onCancel` takes too: a cancellation that came
                // before this point is seen here, one after it finds the continuation.
                let decided = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    if state.releaseAll || state.released.contains(id) { return true }
                    state.waiting[id, default: []].append(continuation)
                    return nil
                }
                if let decided { continuation.resume(returning: decided) }
            }
        } onCancel: {
            let waiters = state.withLock { $0.waiting.removeValue(forKey: id) ?? [] }
            for waiter in waiters { waiter.resume(returning: false) }
        }
        guard proceed, !Task.isCancelled else {
            events.record("cancelled:\(id)")
            throw .cancelled
        }
        let data = bytes(id)
        events.record("finished:\(id)")
        return DataResponse(bytes: data)
    }
}

extension ImageSource {
    /// A custom source whose bytes come from the pipeline's ``ControlledLoader``.
    package static func controlled(_ id: String) -> ImageSource {
        .custom(id: id) { [] }
    }
}
