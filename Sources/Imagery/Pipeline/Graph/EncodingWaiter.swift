/// One caller waiting for room to encode: finished once, with a hold or an error, whichever
/// of the grant, a refusal and the caller's cancellation comes first.
final class EncodingWaiter: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<PixelHold, ImagePipelineError>, Never>?
        var outcome: Result<PixelHold, ImagePipelineError>?
    }

    private let state = Locked(State())

    /// Whether the wait has ended (the caller withdrew, or was answered): a grant after this
    /// is returned at once.
    var isFinished: Bool { state.withLock { $0.outcome != nil } }

    /// Waits for ``finish(_:)``.
    func wait() async -> Result<PixelHold, ImagePipelineError> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<PixelHold, ImagePipelineError>? in
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The caller is cancelled: it is finished with `.cancelled` unless it was granted.
    func withdraw() {
        finish(.failure(.cancelled))
    }

    /// Finishes the wait; `false` when it was finished already (a grant then goes unused).
    @discardableResult
    func finish(_ outcome: Result<PixelHold, ImagePipelineError>) -> Bool {
        let continuation = state.withLock { state -> CheckedContinuation<Result<PixelHold, ImagePipelineError>, Never>?? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.continuation = nil }
            return .some(state.continuation)
        }
        guard let continuation else { return false }
        continuation?.resume(returning: outcome)
        return true
    }
}
