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

    public func loadData(
        for source: ImageSource,
        progress: @escaping @Sendable (DataProgress) -> Void
    ) async throws(DataLoadingError) -> [UInt8] {
        try await loadData(for: source, progress: progress, received: nil)
    }

    /// Hands `received` the bytes of the first attempt only: a retry starts the body again,
    /// and previews made of two beginnings would be nonsense. The image itself is unaffected.
    public func loadData(
        for source: ImageSource,
        progress: @escaping @Sendable (DataProgress) -> Void,
        received: (@Sendable ([UInt8]) -> Void)?
    ) async throws(DataLoadingError) -> [UInt8] {
        let deadline = ContinuousClock.now + policy.deadline
        let described = source.description
        do {
            return try await withThrowingTaskGroup(of: [UInt8].self) { group in
                group.addTask { try await attempts(source, progress: progress, received: received, until: deadline) }
                group.addTask {
                    try await Task.sleep(until: deadline, clock: .continuous)
                    throw DataLoadingError.timedOut(source: described)
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch let error as DataLoadingError {
            throw error
        } catch {
            throw .cancelled
        }
    }

    /// Attempts until one succeeds, a failure is not transient, the attempts run out, or the
    /// next wait would end past `deadline`.
    private func attempts(
        _ source: ImageSource, progress: @escaping @Sendable (DataProgress) -> Void,
        received: (@Sendable ([UInt8]) -> Void)?, until deadline: ContinuousClock.Instant
    ) async throws(DataLoadingError) -> [UInt8] {
        var attempt = 1
        var random = SystemRandomNumberGenerator()
        while true {
            do {
                return try await base.loadData(for: source, progress: progress, received: attempt == 1 ? received : nil)
            } catch {
                guard policy.shouldRetry(error, afterAttempt: attempt), !Task.isCancelled else { throw error }
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
