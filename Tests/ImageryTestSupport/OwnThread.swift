import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `body`, CPU-bound test work of seconds or minutes (a debug build's whole-image
/// references), on a thread of its own at the lowest priority, and suspends until it returns.
///
/// A synchronous test body runs on Swift Concurrency's cooperative pool, at the priority of the
/// threads that accept connections, while the pipeline's heavy-work threads run at nice 10
/// (`HeavyWorkExecutor`). Minutes of such work on two cores (this suite beside the thumbnail
/// suite) left the heavy-work threads a tenth of a core: every decode in every other test
/// crawled, pipeline tests passed their time limits and in-process servers answered 503, which
/// looked like a hang. Here the work takes only what the rest of the run leaves, and the pool
/// stays free. Record expectations on the result, back in the test: `body` runs outside the
/// test's task.
package func onOwnThread<Value: Sendable>(_ body: @escaping @Sendable () throws -> Value) async throws -> Value {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
        Thread.detachNewThread {
            #if os(Linux)
            // Linux gives each thread its own nice value: 19 yields to everything else.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            #endif
            continuation.resume(with: Result { try body() })
        }
    }
}
