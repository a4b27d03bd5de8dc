/// Wraps any loader and retries transient failures with exponential backoff and jitter,
/// as its ``RetryPolicy`` says. A 4xx is never retried; cancellation stops the waiting.
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
        var attempt = 1
        var random = SystemRandomNumberGenerator()
        while true {
            do {
                return try await base.loadData(for: source, progress: progress)
            } catch {
                guard policy.shouldRetry(error, afterAttempt: attempt), !Task.isCancelled else { throw error }
                do {
                    try await sleep(policy.delay(beforeRetry: attempt, using: &random))
                } catch {
                    throw .cancelled
                }
                attempt += 1
            }
        }
    }

    public func cachePartition(for source: ImageSource) -> String? { base.cachePartition(for: source) }
}
