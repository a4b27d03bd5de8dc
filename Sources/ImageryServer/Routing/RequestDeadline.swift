import Hummingbird
import Imagery

/// A request's total time limit (`--request-timeout`, imgproxy's `IMGPROXY_TIMEOUT`): past it
/// the client gets 503 at once, as imgproxy answers, and the work is cancelled. The answer does
/// not wait for the cancelled work to end (an encode under way finishes on its own thread);
/// a download or decode that other requests share goes on for them.
///
/// 503 rather than 504: 504 already says the origin was too slow (`--upstream-timeout`); this
/// says the server was, so a proxy in front may try another instance.
struct RequestDeadline: Sendable {
    let limit: Duration
    /// The clock the limit is measured on: a test's manual clock passes the limit only once the
    /// work is where the test wants it.
    var clock: any Clock<Duration> = ContinuousClock()
    /// Told of each request past its limit.
    var onTimeout: @Sendable () -> Void = {}

    /// What `work` answers, or 503 once `limit` has passed.
    func run(_ work: @escaping @Sendable () async -> Response) async -> Response {
        let race = Race()
        let limit = limit
        let clock = clock
        let onTimeout = onTimeout
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Response, Never>) in
                race.begin(continuation)
                let worker = Task { _ = race.finish(with: await work()) }
                let timer = Task {
                    // A cancelled sleep is the work having answered first: nothing to do.
                    guard (try? await clock.sleep(for: limit)) != nil else { return }
                    if race.finish(with: Self.timedOut(after: limit), announcing: onTimeout) { worker.cancel() }
                }
                race.started(worker: worker, timer: timer)
            }
        } onCancel: {
            race.cancel()
        }
    }

    static func timedOut(after limit: Duration) -> Response {
        PlainResponse.error(
            ServerError(status: .serviceUnavailable, message: "timeout: the request took more than \(ServerSetting.number(limit.seconds)) s", retryAfter: 1),
            cacheControl: "no-store"
        )
    }

    /// Whichever of the work and the timer ends first answers; the other is cancelled. A
    /// cancelled request (the client went away) cancels both.
    private final class Race: Sendable {
        private struct State {
            var continuation: CheckedContinuation<Response, Never>?
            var worker: Task<Void, Never>?
            var timer: Task<Void, Never>?
            var isCancelled = false
        }

        private let state = Locked(State())

        func begin(_ continuation: CheckedContinuation<Response, Never>) {
            state.withLock { $0.continuation = continuation }
        }

        func started(worker: Task<Void, Never>, timer: Task<Void, Never>) {
            let (cancelled, answered) = state.withLock { state in
                state.worker = worker
                state.timer = timer
                return (state.isCancelled, state.continuation == nil)
            }
            if cancelled { worker.cancel() }
            // The work may have answered before the timer was known: stop its sleep.
            if cancelled || answered { timer.cancel() }
        }

        /// Answers with `response` if nothing has yet, calling `announce` first; says whether
        /// it did.
        @discardableResult
        func finish(with response: Response, announcing announce: () -> Void = {}) -> Bool {
            let (continuation, timer) = state.withLock { state in
                defer { state.continuation = nil }
                return (state.continuation, state.timer)
            }
            guard let continuation else { return false }
            timer?.cancel()
            announce()
            continuation.resume(returning: response)
            return true
        }

        func cancel() {
            let (worker, timer) = state.withLock { state in
                state.isCancelled = true
                return (state.worker, state.timer)
            }
            worker?.cancel()
            timer?.cancel()
        }
    }
}
