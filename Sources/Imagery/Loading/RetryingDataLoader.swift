/// Wraps any loader and retries transient failures with exponential backoff and jitter,
/// as its ``RetryPolicy`` says, within the policy's total deadline. A 4xx or a timeout is never
/// retried; cancellation stops the waiting.
///
/// ```swift
/// let loader = RetryingDataLoader(wrapping: DataLoader(), policy: RetryPolicy())
/// ```
public struct RetryingDataLoader: DataLoading {
    /// The loader that does the real work.
    public let base: any DataLoading
    /// When and how soon to retry.
    public let policy: RetryPolicy
    private let sleep: @Sendable (Duration) async throws -> Void

    /// Retries `base` as `policy` says.
    ///
    /// - Parameters:
    ///   - base: the loader that does the real work.
    ///   - policy: when and how soon to retry.
    ///   - sleep: how to wait between attempts; tests pass a double that records the delays.
    ///     Default: `Task.sleep(for:)`.
    public init(
        wrapping base: any DataLoading,
        policy: RetryPolicy = RetryPolicy(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.base = base
        self.policy = policy
        self.sleep = sleep
    }

    /// A failure before the body begins is retried from the start. One after some of the body
    /// was handed on resumes: the next attempt's first bytes must be the ones already handed
    /// on (checked by a keyed hash, not kept), and only the bytes after them are handed on, so
    /// the reader sees one body. A source whose bytes or length changed between attempts fails
    /// with ``DataLoadingError/connectionFailed(source:detail:)`` saying so, without retrying.
    public func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        let deadline = ContinuousClock.now + policy.deadline
        let described = source.description
        return try await DataResponse.streaming { sink throws(DataLoadingError) in
            try await withDeadline(deadline, timeout: .timedOut(source: described)) { () async throws(DataLoadingError) in
                try await attempts(source, into: sink, until: deadline)
            }
        }
    }

    /// Attempts until one is read whole, a failure is not transient, the attempts run out, or
    /// the next wait would end past `deadline`.
    private func attempts(_ source: ImageSource, into sink: DataResponse.Sink, until deadline: ContinuousClock.Instant) async throws(DataLoadingError) {
        var attempt = 1
        var random = SystemRandomNumberGenerator()
        var body = ResumedBody()
        while true {
            do throws(DataLoadingError) {
                let response = try await base.response(for: source)
                try body.begin(response, sink: sink, source: source)
                for try await chunk in response.body {
                    guard let rest = try body.unseen(chunk, source: source) else { continue }
                    try await sink.send(rest)
                }
                try body.end(source: source)
                return
            } catch {
                guard !body.changed, policy.shouldRetry(error, afterAttempt: attempt), !Task.isCancelled else { throw error }
                let delay = policy.delay(beforeRetry: attempt, using: &random)
                guard ContinuousClock.now + delay < deadline else { throw error }
                do {
                    try await sleep(delay)
                } catch {
                    throw .cancelled
                }
                attempt += 1
            }
        }
    }

    public func cachePartition(for source: ImageSource) -> String? { base.cachePartition(for: source) }
}

/// The body as handed on across attempts: how much of it, a keyed hash of those bytes, and,
/// during a later attempt, how much of its start is still to be checked against them.
private struct ResumedBody {
    private var delivered = 0
    private var digest = Hasher()
    private var began = false
    private var expectedLength: Int64?
    private var toCheck = 0
    private var check = Hasher()
    /// The source answered differently from an earlier attempt: never retried.
    private(set) var changed = false

    /// The first attempt that answers gives the reader its head; a later one must agree with it.
    mutating func begin(_ response: DataResponse, sink: DataResponse.Sink, source: ImageSource) throws(DataLoadingError) {
        if !began {
            began = true
            expectedLength = response.expectedLength
            sink.begin(expectedLength: response.expectedLength, headers: response.headers)
        } else if let expectedLength, let length = response.expectedLength, length != expectedLength {
            throw changedError(source)
        }
        toCheck = delivered
        check = Hasher()
    }

    /// The part of `chunk` not yet handed on, once the part that was is checked; `nil` when
    /// all of it was.
    mutating func unseen(_ chunk: [UInt8], source: ImageSource) throws(DataLoadingError) -> [UInt8]? {
        var rest = chunk[...]
        if toCheck > 0 {
            let checked = min(toCheck, chunk.count)
            chunk.withUnsafeBytes { check.combine(bytes: UnsafeRawBufferPointer(rebasing: $0[..<checked])) }
            toCheck -= checked
            rest = chunk[checked...]
            if toCheck == 0, check.finalize() != digest.finalizedCopy() { throw changedError(source) }
        }
        guard !rest.isEmpty else { return nil }
        rest.withUnsafeBytes { digest.combine(bytes: $0) }
        delivered += rest.count
        return Array(rest)
    }

    mutating func end(source: ImageSource) throws(DataLoadingError) {
        if toCheck > 0 { throw changedError(source) }   // shorter than what was handed on
    }

    private mutating func changedError(_ source: ImageSource) -> DataLoadingError {
        changed = true
        return .connectionFailed(source: source.description, detail: "the source changed between attempts")
    }
}

private extension Hasher {
    /// The hash so far, leaving this hasher as it was.
    func finalizedCopy() -> Int {
        let copy = self
        return copy.finalize()
    }
}
