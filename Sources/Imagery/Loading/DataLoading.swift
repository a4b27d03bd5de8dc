/// Fetches the encoded bytes of an ``ImageSource``: the pluggable loading stage.
///
/// The pipeline calls ``loadData(for:progress:)`` once per distinct source however many
/// requests are waiting for it, and cancels the calling task when none are left. Loaders
/// compose: ``DataLoader`` reads URLs, files and closures, and decorators such as
/// ``RetryingDataLoader``, ``AuthorizingDataLoader`` and ``LatencySimulatingDataLoader``
/// wrap any loader.
///
/// ```swift
/// /// Serves `asset:` sources from a directory, and everything else from the network.
/// struct AssetLoader: DataLoading {
///     let assets: String
///     let network = DataLoader()
///
///     func loadData(
///         for source: ImageSource, progress: @escaping @Sendable (DataProgress) -> Void
///     ) async throws(DataLoadingError) -> [UInt8] {
///         if case let .url(url, _) = source.kind, url.scheme == "asset" {
///             return try await network.loadData(for: .file(assets + url.path), progress: progress)
///         }
///         return try await network.loadData(for: source, progress: progress)
///     }
/// }
/// ```
public protocol DataLoading: Sendable {
    /// Loads every byte of `source`, reporting progress as bytes arrive.
    ///
    /// Implementations must stop promptly when the calling task is cancelled and throw
    /// ``DataLoadingError/cancelled``.
    func loadData(
        for source: ImageSource,
        progress: @escaping @Sendable (DataProgress) -> Void
    ) async throws(DataLoadingError) -> [UInt8]

    /// Loads `source` as ``loadData(for:progress:)`` does, and also hands `received` each run
    /// of bytes, in order, as it arrives, for progressive previews
    /// (``ImagePipeline/Configuration/isProgressiveDecodingEnabled``). Only the bytes of the
    /// response that is returned are handed over: none of an error's body, and none of an
    /// attempt that is retried. With `received` `nil`, it is ``loadData(for:progress:)``.
    ///
    /// The default implementation hands over nothing: a loader that cannot stream gives no
    /// previews, and loses nothing else. ``DataLoader`` streams HTTP, and the decorators pass
    /// `received` through.
    func loadData(
        for source: ImageSource,
        progress: @escaping @Sendable (DataProgress) -> Void,
        received: (@Sendable ([UInt8]) -> Void)?
    ) async throws(DataLoadingError) -> [UInt8]

    /// What, besides the source itself, decides the bytes this loader returns for `source`:
    /// for example the account whose token ``AuthorizingDataLoader`` attaches. It becomes
    /// part of every cache key, so two accounts never share an image. Default: `nil`.
    func cachePartition(for source: ImageSource) -> String?
}

extension DataLoading {
    public func cachePartition(for source: ImageSource) -> String? { nil }

    public func loadData(
        for source: ImageSource,
        progress: @escaping @Sendable (DataProgress) -> Void,
        received: (@Sendable ([UInt8]) -> Void)?
    ) async throws(DataLoadingError) -> [UInt8] {
        try await loadData(for: source, progress: progress)
    }
}

/// How much of a download has arrived.
public struct DataProgress: Sendable, Hashable {
    /// Bytes received so far.
    public var completed: Int64
    /// Bytes expected in all, or `nil` when the server did not say.
    public var total: Int64?

    /// Progress of `completed` out of `total` bytes.
    public init(completed: Int64, total: Int64?) {
        self.completed = completed
        self.total = total
    }

    /// `completed / total`, or `nil` when the total is unknown.
    public var fraction: Double? {
        guard let total, total > 0 else { return nil }
        return min(1, Double(completed) / Double(total))
    }
}
