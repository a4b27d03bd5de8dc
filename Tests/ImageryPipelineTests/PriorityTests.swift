@testable import Imagery
import ImageryTestSupport
import ImageryCodecs
import Testing

@Suite(.timeLimit(.minutes(10)))
struct PriorityTests {
    @Test("Queued downloads run in priority order, and a raised priority is honoured")
    func priorityOrder() async throws {
        // Given one download slot, taken by a blocker
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader, downloads: 1)
        let blocker = pipeline.imageTask(with: ImageRequest(source: .controlled("blocker")))
        await loader.events.wait(for: "started:blocker")

        // When four requests queue behind it, and the lowest is then raised to the top
        let queued: [(String, ImageRequest.Priority)] = [("a", .veryLow), ("b", .normal), ("c", .high), ("d", .low)]
        var tasks: [String: ImageTask] = [:]
        for (id, priority) in queued {
            tasks[id] = pipeline.imageTask(with: ImageRequest(source: .controlled(id), priority: priority))
        }
        await pipeline.graph.waitUntil { $0.waitingDownloads == 4 }
        tasks["a"]!.priority = .veryHigh
        let keyA = pipeline.cacheKey(for: ImageRequest(source: .controlled("a"))).sourceKey
        await pipeline.graph.waitUntil { $0.downloadPriority(for: keyA) == .veryHigh }
        loader.releaseAll()

        // Then they start highest first
        for task in tasks.values { _ = try await task.response }
        _ = try await blocker.response
        #expect(loader.startOrder == ["blocker", "a", "c", "b", "d"])
    }

    @Test("Shared work runs at the highest priority among its waiters")
    func sharedWorkTakesHighestPriority() async throws {
        let loader = ControlledLoader()
        let pipeline = Fixtures.pipeline(loader: loader, downloads: 1)
        _ = pipeline.imageTask(with: ImageRequest(source: .controlled("blocker")))
        await loader.events.wait(for: "started:blocker")

        _ = pipeline.imageTask(with: ImageRequest(source: .controlled("normal"), priority: .normal))
        // Two sizes of one source at low and high: the shared download waits at high.
        _ = pipeline.imageTask(with: ImageRequest(source: .controlled("shared"), resize: .width(10), priority: .low))
        let high = pipeline.imageTask(with: ImageRequest(source: .controlled("shared"), resize: .width(20), priority: .high))
        await pipeline.graph.waitUntil { $0.waitingDownloads == 2 && $0.registeredCount == 4 }
        let key = pipeline.cacheKey(for: ImageRequest(source: .controlled("shared"))).sourceKey
        #expect(await pipeline.graph.downloadPriority(for: key) == .high)

        // Lowering the high waiter lowers the shared download again.
        high.priority = .veryLow
        await pipeline.graph.waitUntil { $0.downloadPriority(for: key) == .low }
        loader.releaseAll()
        await pipeline.waitUntilIdle()
        #expect(loader.startOrder == ["blocker", "normal", "shared"])
    }

    @Test("The work queue (downloads and decodes alike) starts highest priority first, FIFO within a level")
    @PipelineActor
    func workQueueOrder() {
        let queue = WorkQueue(limit: 1)
        var started: [String] = []
        var items: [String: WorkQueue.Item] = [:]
        func add(_ name: String, _ priority: ImageRequest.Priority) {
            items[name] = queue.enqueue(priority: priority) { started.append(name) }
        }
        add("running", .veryLow)
        add("low-1", .low)
        add("high", .high)
        add("low-2", .low)
        add("normal", .normal)
        add("cancelled", .veryHigh)
        queue.cancel(items["cancelled"]!)
        queue.setPriority(items["low-2"]!, to: .veryHigh)

        for name in ["running", "low-2", "high", "normal", "low-1"] {
            #expect(started.last == name)
            queue.finished(items[name]!)
        }
        #expect(started == ["running", "low-2", "high", "normal", "low-1"])
        #expect(queue.running == 0 && queue.waitingCount == 0)
    }

    @Test("The work queue never runs more than its limit")
    @PipelineActor
    func workQueueLimit() {
        let queue = WorkQueue(limit: 3)
        var items: [WorkQueue.Item] = []
        var started = 0
        for _ in 0..<10 { items.append(queue.enqueue(priority: .normal) { started += 1 }) }
        #expect(started == 3 && queue.running == 3 && queue.waitingCount == 7)
        queue.finished(items[0])
        #expect(started == 4 && queue.running == 3)
        queue.finished(items[0])   // a second report for the same item is ignored
        #expect(started == 4 && queue.running == 3)
    }

    @Test("With a budget, running costs stay within it; the next item waits for room, and one over the budget runs alone")
    @PipelineActor
    func workQueueBudget() {
        let queue = WorkQueue(limit: 8, budget: 100)
        var started: [String] = []
        var items: [String: WorkQueue.Item] = [:]
        func add(_ name: String, cost: Int, _ priority: ImageRequest.Priority = .normal) {
            items[name] = queue.enqueue(priority: priority, cost: cost) { started.append(name) }
        }
        add("a", cost: 60)
        add("b", cost: 30)
        add("c", cost: 20)     // 60 + 30 + 20 > 100: waits, although slots are free
        add("d", cost: 5)      // would fit, but does not pass c
        #expect(started == ["a", "b"] && queue.costInUse == 90)
        queue.finished(items["a"]!)
        #expect(started == ["a", "b", "c", "d"] && queue.costInUse == 55)
        add("huge", cost: 500)
        #expect(started.count == 4)
        queue.finished(items["b"]!)
        queue.finished(items["c"]!)
        #expect(started.count == 4)
        queue.finished(items["d"]!)
        #expect(started.last == "huge" && queue.running == 1)   // alone, never starved
        add("e", cost: 1)
        #expect(started.last == "huge")
        queue.finished(items["huge"]!)
        #expect(started.last == "e" && queue.costInUse == 1)
    }
}
