import Synchronization
import Tracing

/// One caller's request in flight: change its priority, cancel it, watch its progress, await
/// its response.
///
/// Cancelling a task detaches only this caller. The download and decode it shares with other
/// callers go on for them, and stop when the last one leaves.
///
/// ```swift
/// let task = pipeline.imageTask(with: request)
/// task.priority = .high            // the cell scrolled into view
/// let response = try await task.response
/// // …or, when the cell scrolls away:
/// task.cancel()
/// ```
public final class ImageTask: Sendable, Hashable, CustomStringConvertible {
    /// What a task reports while it runs: progress, then the final image.
    public enum Event: Sendable {
        /// Bytes of the shared download so far.
        case progress(DataProgress)
        /// A preview of the image while it downloads (``ImageRequest/progressivePreviews``):
        /// upright, at the request's size, processed; never cached.
        case preview(Bitmap)
        /// The image.
        case finished(ImageResponse)
    }

    typealias Outcome = Result<ImageResponse, ImagePipelineError>

    private struct State {
        var priority: ImageRequest.Priority
        var isCancelled = false
        var outcome: Outcome?
        var progress: DataProgress?
        var waiters: [CheckedContinuation<Outcome, Never>] = []
        var onEvent: (@Sendable (Event) -> Void)?
        var onFinish: (@Sendable (Outcome) -> Void)?
        /// The pixels of a delivered image kept charged, for a task that asked for it.
        var hold: PixelHold?
    }

    /// Unique within the process.
    public let id: UInt64
    /// The request as it is loaded (after ``ImagePipeline/Configuration/requestRouter``).
    public let request: ImageRequest
    /// The request's key, computed once when the task was made.
    let key: ImageCacheKey
    /// Whether the delivered image's pixels stay charged to the pipeline's budget until the
    /// caller releases them (``ImagePipeline/heldResponse(for:)``).
    let holdsPixels: Bool
    /// The request's span in the app's traces (``PipelineTracing``), ended when it finishes.
    let span: any Span
    private let graph: PipelineGraph
    private let state: Locked<State>

    private static let counter = Atomic<UInt64>(0)

    init(request: ImageRequest, key: ImageCacheKey, graph: PipelineGraph, holdsPixels: Bool = false) {
        self.id = Self.counter.wrappingAdd(1, ordering: .relaxed).newValue
        self.span = PipelineTracing.startRequestSpan("imagery.image", source: request.source)
        self.request = request
        self.key = key
        self.holdsPixels = holdsPixels
        self.graph = graph
        self.state = Locked(State(priority: request.priority))
    }

    /// The task's priority. Raising it moves its waiting work forward; shared work runs at the
    /// highest priority among its waiters.
    public var priority: ImageRequest.Priority {
        get { state.withLock { $0.priority } }
        set {
            let changed = state.withLock { state -> Bool in
                guard state.outcome == nil, state.priority != newValue else { return false }
                state.priority = newValue
                return true
            }
            guard changed else { return }
            Task { @PipelineActor [graph] in graph.priorityChanged(self) }
        }
    }

    /// Detaches this caller: it gets ``ImagePipelineError/cancelled`` at once, and the shared
    /// work stops if nobody else waits for it.
    public func cancel() {
        let first = state.withLock { state -> Bool in
            guard state.outcome == nil, !state.isCancelled else { return false }
            state.isCancelled = true
            return true
        }
        guard first else { return }
        finish(.failure(.cancelled))
        Task { @PipelineActor [graph] in graph.cancel(self) }
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.isCancelled } }

    /// The latest progress of the download this task waits for, if any has arrived.
    public var progress: DataProgress? { state.withLock { $0.progress } }

    /// The image, once it is ready. Awaiting it does not tie the task's life to the awaiting
    /// Swift task: use ``ImagePipeline/image(for:)-(ImageRequest)`` for that.
    public var response: ImageResponse {
        get async throws(ImagePipelineError) { try await outcome().get() }
    }

    func outcome() async -> Outcome {
        if let ready = state.withLock({ $0.outcome }) { return ready }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let ready = state.withLock { state -> Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    // MARK: - Called by the pipeline

    /// Sets the callbacks before the task starts.
    func observe(events: (@Sendable (Event) -> Void)?, finish: (@Sendable (Outcome) -> Void)?) {
        state.withLock {
            $0.onEvent = events
            $0.onFinish = finish
        }
    }

    func report(_ progress: DataProgress) {
        let onEvent = state.withLock { state -> (@Sendable (Event) -> Void)? in
            guard state.outcome == nil else { return nil }
            state.progress = progress
            return state.onEvent
        }
        onEvent?(.progress(progress))
    }

    func report(preview: Bitmap) {
        let onEvent = state.withLock { $0.outcome == nil ? $0.onEvent : nil }
        onEvent?(.preview(preview))
    }

    /// Delivers the outcome; only the first call has any effect, so every waiter and callback
    /// hears exactly once. A `hold` that comes too late is released at once.
    func finish(_ outcome: Outcome, hold: PixelHold? = nil) {
        let delivery = state.withLock { state -> ([CheckedContinuation<Outcome, Never>], (@Sendable (Event) -> Void)?, (@Sendable (Outcome) -> Void)?)? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            state.hold = hold
            let delivery = (state.waiters, state.onEvent, state.onFinish)
            state.waiters = []
            state.onEvent = nil
            state.onFinish = nil
            return delivery
        }
        guard let (waiters, onEvent, onFinish) = delivery else {
            hold?.release()
            return
        }
        if case let .success(response) = outcome, span.isRecording { span.attributes["imagery.origin"] = response.origin.rawValue }
        PipelineTracing.end(span, failure: outcome.failure)
        for waiter in waiters { waiter.resume(returning: outcome) }
        if case let .success(response) = outcome { onEvent?(.finished(response)) }
        onFinish?(outcome)
    }

    var isFinished: Bool { state.withLock { $0.outcome != nil } }

    /// The delivered image's hold, taken once by its caller.
    func takeHold() -> PixelHold? {
        state.withLock { state in
            defer { state.hold = nil }
            return state.hold
        }
    }

    public static func == (lhs: ImageTask, rhs: ImageTask) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    public var description: String { "ImageTask #\(id) \(request)" }
}
