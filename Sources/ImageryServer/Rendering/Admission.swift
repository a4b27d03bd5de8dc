import Synchronization

/// The bound on image requests in flight (running or waiting): past it, new ones get 503 with
/// `Retry-After` at once, instead of a queue that grows until memory runs out.
final class Admission: Sendable {
    let limit: Int
    let metrics: ServerMetrics
    private let inFlight = Atomic<Int>(0)

    init(limit: Int, metrics: ServerMetrics) {
        self.limit = limit
        self.metrics = metrics
    }

    /// Image requests running or waiting now.
    var count: Int { inFlight.load(ordering: .relaxed) }

    /// Runs `work` if there is room, counted until it ends.
    func run<Value: Sendable>(_ work: () async throws(ServerError) -> Value) async throws(ServerError) -> Value {
        let admitted = inFlight.add(1, ordering: .relaxed).newValue
        defer { inFlight.subtract(1, ordering: .relaxed) }
        guard admitted <= limit else { throw .overloaded(retryAfter: 1) }
        // Counted up and down, never set: two requests ending together cannot leave it stale.
        metrics.queuedChanged(by: 1)
        defer { metrics.queuedChanged(by: -1) }
        return try await work()
    }
}
