@testable import Imagery
import Testing

/// The heavy-work threads take jobs by priority, with ageing: driven here as the value the
/// executor holds under its lock, so the order is exact and no thread or clock is involved.
@Suite("The heavy-work queue: priority bands and ageing")
struct HeavyWorkQueueTests {
    /// `TaskPriority`'s raw values.
    static let high: UInt8 = 25, medium: UInt8 = 21, low: UInt8 = 17, background: UInt8 = 9

    func drain(_ queue: inout HeavyWorkQueue<String>) -> [String] {
        var taken: [String] = []
        while let job = queue.next() { taken.append(job) }
        return taken
    }

    @Test("Priorities map to four bands; a job without one is medium")
    func bands() {
        #expect(HeavyWorkQueue<Int>.band(of: 0) == 1)
        #expect([33, 25, 21, 17, 9, 1].map { HeavyWorkQueue<Int>.band(of: $0) } == [0, 0, 1, 2, 3, 3])
        #expect(HeavyWorkQueue<Int>.band(of: TaskPriority.userInitiated.rawValue) == 0)
        #expect(HeavyWorkQueue<Int>.band(of: TaskPriority.utility.rawValue) == 2)
    }

    @Test("The highest band first, each band in arrival order")
    func highestFirst() {
        var queue = HeavyWorkQueue<String>()
        queue.append("low-1", priority: Self.low)
        queue.append("medium-1", priority: Self.medium)
        queue.append("high-1", priority: Self.high)
        queue.append("low-2", priority: Self.low)
        queue.append("high-2", priority: Self.high)
        queue.append("background-1", priority: Self.background)
        #expect(drain(&queue) == ["high-1", "high-2", "medium-1", "low-1", "low-2", "background-1"])
        #expect(queue.isEmpty && queue.next() == nil)
    }

    @Test("Ageing: under a steady stream of high work, a waiting low job runs after agingLimit jobs taken above it")
    func noStarvation() {
        var queue = HeavyWorkQueue<String>()
        let limit = HeavyWorkQueue<String>.agingLimit
        queue.append("large", priority: Self.low)
        queue.append("larger", priority: Self.background)
        var taken: [String] = []
        // New high work arrives as fast as it is taken: without ageing neither would ever run.
        for index in 0..<(4 * limit) {
            queue.append("small-\(index)", priority: Self.high)
            taken.append(queue.next()!)
        }
        let large = try! #require(taken.firstIndex(of: "large"))
        let larger = try! #require(taken.firstIndex(of: "larger"))
        #expect(large == limit, "\(taken)")
        // The background job was passed over by the small ones and by the low one.
        #expect(larger == limit + 1, "\(taken)")
        // The small work keeps its order around them.
        #expect(taken.filter { $0.hasPrefix("small") } == (0..<(4 * limit - 2)).map { "small-\($0)" })
    }

    @Test("A band is passed over only while it has jobs waiting: work arriving later starts at the back")
    func ageingCountsOnlyWaiting() {
        var queue = HeavyWorkQueue<String>()
        let limit = HeavyWorkQueue<String>.agingLimit
        for index in 0..<limit { queue.append("small-\(index)", priority: Self.high) }
        #expect(drain(&queue).count == limit)
        queue.append("large", priority: Self.low)
        queue.append("small-next", priority: Self.high)
        #expect(drain(&queue) == ["small-next", "large"])
    }

    @Test("Many jobs through one band keep their order while the storage is compacted")
    func compaction() {
        var queue = HeavyWorkQueue<Int>()
        var taken: [Int] = []
        for index in 0..<5_000 {
            queue.append(index, priority: Self.medium)
            if index % 3 == 0 { taken.append(queue.next()!) }
        }
        while let job = queue.next() { taken.append(job) }
        #expect(taken == Array(0..<5_000))
    }
}
