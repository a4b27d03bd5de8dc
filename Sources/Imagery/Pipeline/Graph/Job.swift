import Tracing

/// One unit of work in one stage of the graph (a download, a decode, a processing run),
/// shared by every subscriber that asks for the same key: the one mechanism for subscribe,
/// priority and cancel that all three stages use.
///
/// - A job's priority is the highest of its subscribers'; a change moves its queued work
///   and is passed on to the job it depends on.
/// - When the last subscriber leaves before the job is done, the job is cancelled: its
///   ``onCancel`` removes it from its stage, its running work is cancelled, and its own
///   subscription to the job upstream is dropped, so cancellation reaches every stage and
///   stops each one only when nobody downstream still waits for it.
/// - What subscribers want stored (``Writes``) is gathered and passed upstream, so the
///   stage that produces a result knows whether anyone asked for it to be kept.
@PipelineActor
final class Job<Value: Sendable> {
    /// The job's span in the app's traces (``PipelineTracing``): set by ``PipelineGraph/join``,
    /// ended when the job finishes or is cancelled.
    let span: any Span

    enum Event {
        case progress(DataProgress)
        /// A picture of the result before it is ready; not replayed to late subscribers.
        case preview(Bitmap)
        case finished(Result<Value, ImagePipelineError>)
    }

    typealias Handler = @PipelineActor (Event) -> Void

    private var subscribers: [Int: (priority: ImageRequest.Priority, handler: Handler)] = [:]
    private var nextSubscriber = 0
    private(set) var priority: ImageRequest.Priority = .veryLow
    /// Finished or cancelled: subscribing is refused and nothing more is delivered.
    private(set) var isDone = false
    /// What any subscriber, here or downstream, asked to have stored.
    private(set) var writes: Writes = []
    /// The latest progress, replayed to a subscriber that joins late.
    private(set) var progress: DataProgress?

    /// This job's subscription to the job whose result it needs.
    var dependency: Subscription?
    /// The queue slot of this job's work, if it has one, and its queue.
    private(set) var item: WorkQueue.Item?
    private var queue: WorkQueue?
    /// The work running off the actor, if any.
    var work: Task<Void, Never>? {
        didSet {
            guard work == nil, spanEndsWithWork else { return }
            spanEndsWithWork = false
            span.end()
        }
    }
    /// Cancelled while its work ran: the span lasts until the work has really stopped.
    private var spanEndsWithWork = false
    /// Removes the job from its stage when it is cancelled.
    var onCancel: (@PipelineActor () -> Void)?

    var subscriberCount: Int { subscribers.count }

    init(span: any Span) {
        self.span = span
    }

    /// Adds a subscriber; `nil` when the job is already done.
    func subscribe(priority: ImageRequest.Priority, writes: Writes, _ handler: @escaping Handler) -> Subscription? {
        guard !isDone else { return nil }
        let id = nextSubscriber
        nextSubscriber += 1
        subscribers[id] = (priority, handler)
        want(writes)
        if let progress { handler(.progress(progress)) }
        updatePriority()
        return Subscription(
            cancel: { [weak self] in self?.unsubscribe(id) },
            setPriority: { [weak self] priority in self?.setPriority(of: id, to: priority) },
            want: { [weak self] writes in self?.want(writes) }
        )
    }

    /// Queues `start` on `queue` at this job's priority, charging its budget `cost` while the
    /// work runs and `held` from now on; the work it starts must call ``workFinished()`` when
    /// it ends.
    ///
    /// Work that waits for a slot has a child span, `imagery.wait`, from the moment it was
    /// queued to the moment it starts: the admission wait, on its own bar in a trace. Work
    /// that starts at once has none.
    func enqueue(on queue: WorkQueue, cost: Int = 0, held: Int = 0, _ start: @escaping @PipelineActor () -> Void) {
        self.queue = queue
        let queued = span.isRecording ? DefaultTracerClock.now : nil
        item = queue.enqueue(priority: priority, cost: cost, held: held) { [span, weak self] in
            span.addEvent("started")
            // Started from within `queue.enqueue` (there was room), `item` is not set yet: no wait.
            if let queued, self?.item != nil {
                InstrumentationSystem.tracer.startSpan("imagery.wait", context: span.context, at: queued).end()
            }
            // The work starts inside whichever task freed the slot: it runs in this job's own
            // trace (and so with its request's id), not in that task's.
            ServiceContext.withValue(span.context) { start() }
        }
    }

    /// Returns the queue slot once the work has really stopped.
    func workFinished() {
        if let item { queue?.finished(item) }
        item = nil
        queue = nil
        work = nil
    }

    func send(_ progress: DataProgress) {
        guard !isDone else { return }
        self.progress = progress
        for subscriber in subscribers.values { subscriber.handler(.progress(progress)) }
    }

    func send(preview: Bitmap) {
        guard !isDone else { return }
        for subscriber in subscribers.values { subscriber.handler(.preview(preview)) }
    }

    /// Delivers the result to every subscriber, once.
    func finish(_ result: Result<Value, ImagePipelineError>) {
        guard !isDone else { return }
        isDone = true
        dependency = nil
        PipelineTracing.end(span, failure: result.failure)
        let delivered = subscribers.values
        subscribers = [:]
        for subscriber in delivered { subscriber.handler(.finished(result)) }
    }

    private func unsubscribe(_ id: Int) {
        guard subscribers.removeValue(forKey: id) != nil, !isDone else { return }
        if subscribers.isEmpty { cancel() } else { updatePriority() }
    }

    private func setPriority(of id: Int, to priority: ImageRequest.Priority) {
        guard subscribers[id] != nil else { return }
        subscribers[id]?.priority = priority
        updatePriority()
    }

    private func want(_ writes: Writes) {
        guard !writes.isSubset(of: self.writes) else { return }
        self.writes.formUnion(writes)
        dependency?.want(writes)
    }

    private func updatePriority() {
        let highest = subscribers.values.lazy.map(\.priority).max() ?? .veryLow
        guard highest != priority else { return }
        priority = highest
        if let item { queue?.setPriority(item, to: highest) }
        dependency?.setPriority(highest)
    }

    private func cancel() {
        isDone = true
        if work == nil {
            PipelineTracing.end(span, failure: .cancelled)
        } else {
            span.attributes["imagery.cancelled"] = true
            spanEndsWithWork = true
        }
        // A waiting item leaves its queue; a running one keeps its slot until its work stops.
        if let item { queue?.cancel(item) }
        work?.cancel()
        onCancel?()
        let upstream = dependency
        dependency = nil
        upstream?.cancel()
    }
}

/// A subscriber's handle on a ``Job``: leave it, change its priority, or ask for more to be
/// stored. It holds the job weakly: a finished job is gone and these do nothing.
@PipelineActor
struct Subscription {
    let cancel: @PipelineActor () -> Void
    let setPriority: @PipelineActor (ImageRequest.Priority) -> Void
    let want: @PipelineActor (Writes) -> Void
}

/// What the callers of a job asked to have stored. Each stage reads its own part: the fetch
/// stage ``originalOnDisk``, the processing stage the other two.
struct Writes: OptionSet, Sendable {
    let rawValue: UInt8
    static let memory = Writes(rawValue: 1 << 0)
    static let processedOnDisk = Writes(rawValue: 1 << 1)
    static let originalOnDisk = Writes(rawValue: 1 << 2)
}
