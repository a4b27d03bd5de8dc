/// The jobs waiting for ``HeavyWorkExecutor``'s threads: one FIFO per priority band, the
/// highest band taken first, with ageing so that no band starves.
///
/// A job's band is its task's priority, which the pipeline sets from the request's (and the
/// server from the request's estimated cost): a thumbnail asked at high priority does not wait
/// behind a gallery being prefetched. After ``agingLimit`` jobs taken from higher bands while a
/// band has jobs waiting, that band's oldest job runs next, so a steady stream of small work
/// delays large work by a bounded number of jobs, never for ever.
///
/// A value with no locking of its own: the executor holds it under its lock, and tests drive
/// it directly.
struct HeavyWorkQueue<Job> {
    /// How many jobs of higher bands may be taken while a lower band waits, before its oldest
    /// is taken.
    static var agingLimit: Int { 8 }

    /// High, medium, low and background, in that order.
    private var bands = [Band](repeating: Band(), count: 4)
    /// Per band: the jobs taken from higher bands while it had jobs waiting.
    private var passedOver = [Int](repeating: 0, count: 4)

    /// One FIFO: jobs before `head` have been taken.
    private struct Band {
        var jobs: [Job] = []
        var head = 0
        var isEmpty: Bool { head == jobs.count }

        mutating func take() -> Job {
            let job = jobs[head]
            head += 1
            // Drop what was taken in one step rather than shifting the array per job; under
            // steady load a band never empties, so drop it once it is most of the array.
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024, head * 2 >= jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    /// Whether no job waits.
    var isEmpty: Bool { bands.allSatisfy(\.isEmpty) }

    /// The band of a job of `priority`, as `TaskPriority`'s raw values: high (25 and above),
    /// medium (21), low (17), background (9 and below); a job without one (0) is medium.
    static func band(of priority: UInt8) -> Int {
        switch priority {
        case 0: 1
        case 25...: 0
        case 21..<25: 1
        case 17..<21: 2
        default: 3
        }
    }

    mutating func append(_ job: Job, priority: UInt8) {
        bands[Self.band(of: priority)].jobs.append(job)
    }

    /// The next job: the oldest of the highest band passed over ``agingLimit`` times, else the
    /// oldest of the highest band with jobs; `nil` when none waits.
    mutating func next() -> Job? {
        guard let highest = bands.firstIndex(where: { !$0.isEmpty }) else { return nil }
        let aged = bands.indices.first { !bands[$0].isEmpty && passedOver[$0] >= Self.agingLimit }
        let band = aged ?? highest
        for lower in band + 1..<bands.count where !bands[lower].isEmpty { passedOver[lower] += 1 }
        passedOver[band] = 0
        return bands[band].take()
    }
}
