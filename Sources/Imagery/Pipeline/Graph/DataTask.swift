import Synchronization
import Tracing

/// One caller of ``ImagePipeline/data(for:)``: it waits on the fetch stage only, beside the
/// decode jobs of the same source, so original bytes and images share one download.
final class DataTask: Sendable {
    typealias Outcome = Result<PipelineGraph.Fetched, ImagePipelineError>

    private struct State {
        var outcome: Outcome?
        var waiter: CheckedContinuation<Outcome, Never>?
    }

    let id: UInt64
    let request: ImageRequest
    /// The source's key, computed once when the task was made.
    let sourceKey: String
    /// The caller's span in the app's traces (``PipelineTracing``), ended when it finishes.
    let span: any Span
    private let state = Locked(State())

    private static let counter = Atomic<UInt64>(0)

    init(request: ImageRequest, sourceKey: String) {
        self.id = Self.counter.wrappingAdd(1, ordering: .relaxed).newValue
        self.request = request
        self.sourceKey = sourceKey
        self.span = PipelineTracing.startRequestSpan("imagery.data", source: request.source)
    }

    var priority: ImageRequest.Priority { request.priority }
    var isFinished: Bool { state.withLock { $0.outcome != nil } }

    /// The outcome, once the fetch (or a cancellation) delivers it. One awaiter: the
    /// `data(for:)` call that made the task.
    func outcome() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Delivers the outcome; only the first call has any effect.
    func finish(_ outcome: Outcome) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>?? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer { state.waiter = nil }
            return .some(state.waiter)
        }
        guard case let .some(waiter) = waiter else { return }
        PipelineTracing.end(span, failure: outcome.failure)
        waiter?.resume(returning: outcome)
    }
}
