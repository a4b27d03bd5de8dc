import Metrics

/// Bounded concurrency with priorities: at most `limit` items run at once; waiting items start
/// highest priority first, first come first served within a priority, and an item whose
/// priority changes while it waits moves to its new place.
///
/// With a ``PixelBudget``, which queues may share, the costs of running items also stay within
/// it (the decode queue charges the pixels a decode holds, the processing queue what a run adds
/// to its input). The next item waits for room rather than letting smaller ones pass it, so a
/// large item is never starved. No item waits for what may never come: one larger than the
/// whole budget runs alone once no queue sharing the budget runs anything (the pixels that
/// callers hold, which only they release, do not keep it waiting: its caller may be one of
/// them), and the processing queue, whose waiting inputs are charged and only its runs release
/// them, starts its next run whatever it adds when it runs nothing itself. A server, whose
/// holds each end with an encode, has such work wait for them too
/// (``ImagePipeline/Configuration/largeWorkWaitsForHolds``): large work then runs one piece at
/// a time, never beside an earlier one's result still held.
@PipelineActor
final class WorkQueue {
    final class Item {
        fileprivate(set) var priority: ImageRequest.Priority
        fileprivate var state: State = .waiting
        fileprivate let cost: Int
        /// Pixels charged from the moment the item is queued (an input that already exists),
        /// released with ``cost`` when it ends or is cancelled.
        fileprivate let held: Int
        fileprivate let start: @PipelineActor () -> Void

        fileprivate enum State { case waiting, running, done }

        /// Whether the item has ended, or left the queue without running.
        var isDone: Bool { state == .done }

        fileprivate init(priority: ImageRequest.Priority, cost: Int, held: Int, start: @escaping @PipelineActor () -> Void) {
            self.priority = priority
            self.cost = cost
            self.held = held
            self.start = start
        }
    }

    /// When an item too large for the room left may start anyway.
    enum Alone {
        /// An item larger than the whole budget, when no queue sharing the budget runs
        /// anything (and callers hold nothing, where large work waits for holds); an item that
        /// could fit waits for room.
        case whenNothingRuns
        /// Any item, when this queue runs nothing (and callers hold nothing, where large work
        /// waits for holds).
        case whenQueueIsIdle
        /// Any item, when no queue sharing the budget runs anything, whatever callers hold:
        /// an encode's room waits beside delivered images, its own among them, that only
        /// encodes let go.
        case whenNoWorkRuns
    }

    let limit: Int
    let budget: PixelBudget?
    private let alone: Alone
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

    /// A queue with a budget of its own, or none.
    nonisolated convenience init(
        limit: Int, budget: Int? = nil, admits: @escaping @PipelineActor () -> Bool = { true },
        onLeftWaiting: (@PipelineActor () -> Void)? = nil
    ) {
        self.init(limit: limit, sharing: budget.map { PixelBudget(limit: $0) }, alone: .whenNothingRuns, admits: admits, onLeftWaiting: onLeftWaiting)
    }

    /// A queue charging `budget`, which other queues may share; it registers with the budget
    /// on first use, to be offered the room others release.
    nonisolated init(
        limit: Int, sharing budget: PixelBudget?, alone: Alone, admits: @escaping @PipelineActor () -> Bool = { true },
        onLeftWaiting: (@PipelineActor () -> Void)? = nil, waitingGauge: Meter? = nil
    ) {
        self.limit = max(1, limit)
        self.budget = budget
        self.alone = alone
        self.admits = admits
        self.onLeftWaiting = onLeftWaiting
        self.waitingGauge = waitingGauge
    }

    /// The items waiting, as a gauge (`<prefix>_work_waiting` by stage), set as it changes.
    private let waitingGauge: Meter?

    private var isRegistered = false

    var waitingCount: Int { waiting.reduce(0) { $0 + $1.count } }

    /// Queues `start`, which is called on the actor when a slot is free. The work it starts
    /// must call ``finished(_:)`` exactly once when it ends.
    ///
    /// - Parameters:
    ///   - cost: pixels charged to the budget while the item runs.
    ///   - held: pixels charged from now until the item ends or is cancelled: what it already
    ///     holds while it waits.
    @discardableResult
    func enqueue(priority: ImageRequest.Priority, cost: Int = 0, held: Int = 0, start: @escaping @PipelineActor () -> Void) -> Item {
        if let budget, !isRegistered {
            budget.register(self)
            isRegistered = true
        }
        let item = Item(priority: priority, cost: max(0, cost), held: budget == nil ? 0 : max(0, held), start: start)
        budget?.charge(item.held)
        waiting[priority.rawValue].append(item)
        drain()
        waitingGauge?.set(waitingCount)
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
        waitingGauge?.set(waitingCount)
        onLeftWaiting?()
        budget?.release(item.held)
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
        if let budget {
            // The budget offers the room to every queue sharing it, this one included.
            budget.release(item.cost + item.held)
        } else {
            drain()
        }
    }

    private func drain() {
        while running < limit, let level = highestWaitingLevel(), admits() {
            let item = waiting[level][0]
            if let budget, !budget.fits(item.cost) {
                let mayStartAlone = switch alone {
                case .whenNothingRuns: item.cost > budget.limit && budget.runningItems == 0 && budget.holdsLetWorkRunAlone
                case .whenQueueIsIdle: running == 0 && budget.holdsLetWorkRunAlone
                case .whenNoWorkRuns: budget.runningItems == 0
                }
                guard mayStartAlone else { return }
            }
            waiting[level].removeFirst()
            item.state = .running
            running += 1
            costInUse += item.cost
            budget?.charge(item.cost)
            waitingGauge?.set(waitingCount)
            item.start()
            onLeftWaiting?()
        }
    }

    private func highestWaitingLevel() -> Int? {
        waiting.indices.reversed().first { !waiting[$0].isEmpty }
    }
}
