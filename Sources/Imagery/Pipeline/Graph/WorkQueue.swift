/// Bounded concurrency with priorities: at most `limit` items run at once; waiting items start
/// highest priority first, first come first served within a priority, and an item whose
/// priority changes while it waits moves to its new place.
///
/// With a `budget`, the costs of running items also stay within it (the decode queue charges
/// decoded pixels). The next item waits for room rather than letting smaller ones pass it, so a
/// large item is never starved; one larger than the whole budget runs alone.
@PipelineActor
final class WorkQueue {
    final class Item {
        fileprivate(set) var priority: ImageRequest.Priority
        fileprivate var state: State = .waiting
        fileprivate let cost: Int
        fileprivate let start: @PipelineActor () -> Void

        fileprivate enum State { case waiting, running, done }

        fileprivate init(priority: ImageRequest.Priority, cost: Int, start: @escaping @PipelineActor () -> Void) {
            self.priority = priority
            self.cost = cost
            self.start = start
        }
    }

    let limit: Int
    let budget: Int?
    /// Whether a waiting item may start now, besides the limit and the budget: the downloads
    /// wait while too many fetched sources wait for a decode. Call ``retry()`` when it may
    /// have changed.
    private let admits: @PipelineActor () -> Bool
    /// Called when an item leaves the waiting list, started or cancelled.
    private let onLeftWaiting: (@PipelineActor () -> Void)?
    private(set) var running = 0
    /// The summed cost of the running items.
    private(set) var costInUse = 0
    /// One FIFO per priority level.
    private var waiting: [[Item]] = Array(repeating: [], count: ImageRequest.Priority.allCases.count)

    nonisolated init(
        limit: Int, budget: Int? = nil, admits: @escaping @PipelineActor () -> Bool = { true },
        onLeftWaiting: (@PipelineActor () -> Void)? = nil
    ) {
        self.limit = max(1, limit)
        self.budget = budget.map { max(1, $0) }
        self.admits = admits
        self.onLeftWaiting = onLeftWaiting
    }

    var waitingCount: Int { waiting.reduce(0) { $0 + $1.count } }

    /// Queues `start`, which is called on the actor when a slot is free. The work it starts
    /// must call ``finished(_:)`` exactly once when it ends.
    @discardableResult
    func enqueue(priority: ImageRequest.Priority, cost: Int = 0, start: @escaping @PipelineActor () -> Void) -> Item {
        let item = Item(priority: priority, cost: max(0, cost), start: start)
        waiting[priority.rawValue].append(item)
        drain()
        return item
    }

    func setPriority(_ item: Item, to priority: ImageRequest.Priority) {
        guard item.priority != priority else { return }
        if item.state == .waiting, let index = waiting[item.priority.rawValue].firstIndex(where: { $0 === item }) {
            waiting[item.priority.rawValue].remove(at: index)
            waiting[priority.rawValue].append(item)
        }
        item.priority = priority
    }

    /// Removes a waiting item. A running item is stopped by its owner, which then calls
    /// ``finished(_:)``: the slot stays taken until the work has really stopped.
    func cancel(_ item: Item) {
        guard item.state == .waiting else { return }
        if let index = waiting[item.priority.rawValue].firstIndex(where: { $0 === item }) {
            waiting[item.priority.rawValue].remove(at: index)
        }
        item.state = .done
        onLeftWaiting?()
    }

    /// Starts what may start now that ``admits`` may say yes.
    func retry() {
        drain()
    }

    func finished(_ item: Item) {
        guard item.state == .running else { return }
        item.state = .done
        running -= 1
        costInUse -= item.cost
        drain()
    }

    private func drain() {
        while running < limit, let level = highestWaitingLevel(), admits() {
            let item = waiting[level][0]
            if let budget, running > 0, costInUse + item.cost > budget { return }
            waiting[level].removeFirst()
            item.state = .running
            running += 1
            costInUse += item.cost
            item.start()
            onLeftWaiting?()
        }
    }

    private func highestWaitingLevel() -> Int? {
        waiting.indices.reversed().first { !waiting[$0].isEmpty }
    }
}
