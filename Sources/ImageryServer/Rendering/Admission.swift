import Synchronization

/// The bound on image requests in flight (running or waiting): past it, new ones are refused
/// at once with `Retry-After`, instead of a queue that grows until memory runs out.
///
/// Two ways to set it, one at a time: `--max-queue` counts every request in flight and
/// answers 503; `--requests-queue-size`, imgproxy's queue, counts those waiting beyond the
/// `--concurrency` workers and answers 429, as imgproxy's semaphore of queue plus workers does.
final class Admission: Sendable {
    let limit: Int
    /// What a request past the limit gets.
    let refusal: ServerError
    let metrics: ServerMetrics
    private let inFlight = Atomic<Int>(0)

    init(limit: Int, refusal: ServerError = .overloaded(retryAfter: 1), metrics: ServerMetrics) {
        self.limit = limit
        self.refusal = refusal
        self.metrics = metrics
    }

    /// The bound a server with `configuration` keeps.
    convenience init(configuration: ServerConfiguration, metrics: ServerMetrics) {
        if configuration.requestsQueueSize > 0 {
            self.init(limit: configuration.concurrentProcessing + configuration.requestsQueueSize, refusal: .tooManyRequests(retryAfter: 1), metrics: metrics)
        } else {
            self.init(limit: configuration.maximumQueue, metrics: metrics)
        }
    }

    /// Image requests running or waiting now.
    var count: Int { inFlight.load(ordering: .relaxed) }

    /// Runs `work` if there is room, counted until it ends.
    func run<Value: Sendable>(_ work: () async throws(ServerError) -> Value) async throws(ServerError) -> Value {
        let admitted = inFlight.add(1, ordering: .relaxed).newValue
        defer { inFlight.subtract(1, ordering: .relaxed) }
        guard admitted <= limit else {
            metrics.unavailable(.queue)
            throw refusal
        }
        // Counted up and down, never set: two requests ending together cannot leave it stale.
        metrics.queuedChanged(by: 1)
        defer { metrics.queuedChanged(by: -1) }
        return try await work()
    }
}
