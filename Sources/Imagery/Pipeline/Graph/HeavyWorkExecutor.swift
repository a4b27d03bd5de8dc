import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The threads that decodes, processing runs and encodes run on: threads of their own, one
/// per core, not the cooperative pool's.
///
/// The cooperative pool has one thread per core too, and a decode on it holds its thread
/// until it ends. A server with every pool thread decoding cannot run anything else, not even
/// the handler of a health check, until a decode finishes. On threads of their own, at a lower
/// priority, heavy work competes with the pool only in the kernel's scheduler, which preempts it.
///
/// Jobs wait by priority (``HeavyWorkQueue``): the highest first, with ageing.
// @unchecked Sendable: `queue` is read and written only under `condition`'s lock.
package final class HeavyWorkExecutor: TaskExecutor, @unchecked Sendable {

    /// The one executor every pipeline in the process shares, so that heavy work never uses
    /// more threads than the machine has cores, however many pipelines there are.
    package static let shared = HeavyWorkExecutor(threads: ProcessInfo.processInfo.activeProcessorCount)

    private let condition = NSCondition()
    private var queue = HeavyWorkQueue<UnownedJob>()

    private init(threads: Int) {
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in work() }
            thread.name = "imagery.heavy-work.\(index)"
            thread.start()
        }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let priority = job.priority.rawValue
        let job = UnownedJob(job)
        condition.lock()
        queue.append(job, priority: priority)
        condition.signal()
        condition.unlock()
    }

    private func work() {
        #if os(Linux)
        // Linux gives each thread its own nice value: heavy work yields the cores to the
        // threads that accept connections and answer health checks, and takes what they leave.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        #endif
        while true {
            condition.lock()
            var next = queue.next()
            while next == nil {
                condition.wait()
                next = queue.next()
            }
            condition.unlock()
            guard let job = next else { continue }
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

extension ImagePipeline {
    /// Runs `work` (a decode, an encode, a resample) on ``HeavyWorkExecutor``, off the
    /// cooperative pool, at the calling task's priority, and returns its result.
    @concurrent
    package static func runHeavyWork<Value: Sendable, Failure: Error>(
        _ work: @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        try await withTaskExecutorPreference(HeavyWorkExecutor.shared) { () async throws(Failure) -> Value in try work() }
    }

    /// Runs `work`, which awaits (side-by-side encodes, a processing run that yields), on
    /// ``HeavyWorkExecutor``: every step of it, and every child task it starts, runs there.
    @concurrent
    package static func runHeavyWork<Value: Sendable, Failure: Error>(
        _ work: @Sendable () async throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        try await withTaskExecutorPreference(HeavyWorkExecutor.shared) { () async throws(Failure) -> Value in try await work() }
    }
}
