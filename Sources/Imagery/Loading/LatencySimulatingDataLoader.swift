/// Wraps any loader and waits a random time from a range before each load: a stand-in for a
/// slow network in demos, previews and tests.
///
/// ```swift
/// let slow = LatencySimulatingDataLoader(wrapping: DataLoader(), delay: .milliseconds(300)...(.milliseconds(1500)))
/// let pipeline = ImagePipeline(configuration: .standard.with { $0.dataLoader = slow })
/// ```
public struct LatencySimulatingDataLoader: DataLoading {
    /// The loader that does the real work.
    public let base: any DataLoading
    /// The range each delay is drawn from, uniformly.
    public let delay: ClosedRange<Duration>
    private let sleep: @Sendable (Duration) async throws -> Void

    /// Delays every load of `base` by a uniformly random time in `delay`.
    ///
    /// - Parameters:
    ///   - base: the loader that does the real work.
    ///   - delay: the range each delay is drawn from.
    ///   - sleep: how to wait; tests pass a suspendable double. Default: `Task.sleep(for:)`.
    public init(
        wrapping base: any DataLoading,
        delay: ClosedRange<Duration>,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.base = base
        self.delay = delay
        self.sleep = sleep
    }

    public func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        let low = delay.lowerBound.seconds, high = delay.upperBound.seconds
        let seconds = high > low ? Double.random(in: low...high) : low
        do {
            try await sleep(.seconds(seconds))
        } catch {
            throw .cancelled
        }
        return try await base.response(for: source)
    }

    public func cachePartition(for source: ImageSource) -> String? { base.cachePartition(for: source) }
}
