import Imagery

/// Suspends until the calling task is cancelled, then throws `CancellationError`: a stand-in
/// for long work (an ML model, a slow service) that ends only by cancellation, with no timer.
package func suspendUntilCancelled() async throws {
    struct Slot: Sendable {
        var continuation: CheckedContinuation<Void, Never>?
        var cancelled = false
    }
    let slot = Locked(Slot())
    await withTaskCancellationHandler {
        await withCheckedContinuation { continuation in
            // Under the lock either the handler has already run (resume now) or it will find
            // the continuation: no cancellation is missed between the two.
            let cancelled = slot.withLock { slot -> Bool in
                if slot.cancelled { return true }
                slot.continuation = continuation
                return false
            }
            if cancelled { continuation.resume() }
        }
    } onCancel: {
        let waiting = slot.withLock { slot -> CheckedContinuation<Void, Never>? in
            slot.cancelled = true
            defer { slot.continuation = nil }
            return slot.continuation
        }
        waiting?.resume()
    }
    throw CancellationError()
}
