
extension ImagePipeline {
    /// What a ``prefetch(_:maximumConcurrent:)`` achieved.
    public struct PrefetchReport: Sendable {
        /// Requests now in the memory cache that were not before.
        public var loaded = 0
        /// Requests that were already in the memory cache.
        public var alreadyCached = 0
        /// Requests stopped by ``cancelPrefetch(_:)`` or by cancelling the prefetching task.
        public var cancelled = 0
        /// Requests that failed, with why. One failure never stops the others.
        public var failures: [(request: ImageRequest, error: ImagePipelineError)] = []
    }

    /// Warms the memory cache with `requests` at low priority, at most `maximumConcurrent` at a
    /// time (on top of the pipeline's own download and decode limits), and reports the outcome.
    ///
    /// ```swift
    /// // Rows about to scroll into view:
    /// Task { await pipeline.prefetch(upcoming.map { ImageRequest(url: $0, resize: cellSize) }) }
    /// // They scrolled away again:
    /// pipeline.cancelPrefetch(upcoming.map { ImageRequest(url: $0, resize: cellSize) })
    /// ```
    @discardableResult
    public func prefetch(_ requests: [ImageRequest], maximumConcurrent: Int = 4) async -> PrefetchReport {
        let keys = requests.map { cacheKey(for: $0) }
        let tickets = keys.map { prefetches.register($0) }
        defer { for ticket in tickets { prefetches.unregister(ticket) } }

        var report = PrefetchReport()
        await withTaskGroup(of: (Int, ImageTask.Outcome?).self) { group in
            var next = 0
            func addNext() {
                guard next < requests.count else { return }
                let index = next
                next += 1
                group.addTask { (index, await self.prefetchOne(requests[index], ticket: tickets[index])) }
            }
            for _ in 0..<max(1, maximumConcurrent) { addNext() }
            for await (index, outcome) in group {
                switch outcome {
                case nil: report.alreadyCached += 1
                case .success: report.loaded += 1
                case .failure(.cancelled): report.cancelled += 1
                case let .failure(error): report.failures.append((requests[index], error))
                }
                addNext()
            }
        }
        return report
    }

    /// Stops prefetching `requests`: those waiting to start never start, and those under way
    /// are cancelled (work that other callers share goes on for them).
    public func cancelPrefetch(_ requests: [ImageRequest]) {
        prefetches.cancel(Set(requests.map { cacheKey(for: $0) }))
    }

    /// `nil` when the image was already cached.
    private func prefetchOne(_ request: ImageRequest, ticket: PrefetchRegistry.Ticket) async -> ImageTask.Outcome? {
        var request = request
        request.priority = min(request.priority, .low)
        let task = start(request) { prefetches.attach($0, to: ticket) }
        let outcome = await withTaskCancellationHandler {
            await task.outcome()
        } onCancel: {
            task.cancel()
        }
        if case let .success(response) = outcome, response.origin == .memory { return nil }
        return outcome
    }
}

/// The prefetches under way, by cache key, so that ``ImagePipeline/cancelPrefetch(_:)`` can
/// reach ones that have not started yet as well as those that have.
final class PrefetchRegistry: Sendable {
    struct Ticket: Hashable, Sendable {
        let key: ImageCacheKey
        let serial: Int
    }

    private struct Entry {
        var cancelled = false
        var task: ImageTask?
    }

    private struct State {
        var serial = 0
        var entries: [Ticket: Entry] = [:]
    }

    private let state = Locked(State())

    func register(_ key: ImageCacheKey) -> Ticket {
        state.withLock { state in
            state.serial += 1
            let ticket = Ticket(key: key, serial: state.serial)
            state.entries[ticket] = Entry()
            return ticket
        }
    }

    func unregister(_ ticket: Ticket) {
        _ = state.withLock { $0.entries.removeValue(forKey: ticket) }
    }

    /// Records the task for `ticket`; `false` if the prefetch was cancelled before it started.
    func attach(_ task: ImageTask, to ticket: Ticket) -> Bool {
        state.withLock { state in
            guard state.entries[ticket]?.cancelled == false else { return false }
            state.entries[ticket]?.task = task
            return true
        }
    }

    /// Marks every prefetch of `keys` cancelled in one step, then cancels the started ones: a
    /// cancelled task frees a slot in its batch, and the next request must already be marked.
    func cancel(_ keys: Set<ImageCacheKey>) {
        let tasks = state.withLock { state -> [ImageTask] in
            var tasks: [ImageTask] = []
            for ticket in state.entries.keys where keys.contains(ticket.key) {
                state.entries[ticket]?.cancelled = true
                if let task = state.entries[ticket]?.task { tasks.append(task) }
            }
            return tasks
        }
        for task in tasks { task.cancel() }
    }
}
