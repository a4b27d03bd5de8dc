/// Fetches the encoded bytes of an ``ImageSource``: the pluggable loading stage.
///
/// A loader has one job, ``response(for:)``: answer what the source said, with its bytes as
/// an async sequence of chunks. The pipeline calls it once per distinct source however many
/// requests are waiting for it, reads the body to its end (reporting progress and, with
/// progressive previews on, handing the chunks to the decoder as they arrive), and cancels the
/// reading task when no request is left. The whole-body ``loadData(for:progress:)`` is derived
/// from it.
///
/// Loaders compose: ``DataLoader`` reads URLs, files and closures, and decorators such as
/// ``RetryingDataLoader``, ``AuthorizingDataLoader`` and ``LatencySimulatingDataLoader``
/// wrap any loader. A decorator returns the response of the loader it wraps, or one built over
/// its body, so it cannot lose the bytes on the way.
///
/// ```swift
/// /// Serves `asset:` sources from a directory, and everything else from the network.
/// struct AssetLoader: DataLoading {
///     let assets: String
///     let network = DataLoader()
///
///     func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
///         if case let .url(url, _) = source.kind, url.scheme == "asset" {
///             return try await network.response(for: .file(assets + url.path))
///         }
///         return try await network.response(for: source)
///     }
/// }
/// ```
public protocol DataLoading: Sendable {
    /// Starts loading `source`, and returns once it has answered: what it said, and its body
    /// as it arrives (``DataResponse/body``). Only a successful answer is returned: an HTTP
    /// error status, a missing file or a refused connection throws here, so no error's body
    /// reaches a reader.
    ///
    /// Implementations stop promptly when the calling task, or the task reading the body, is
    /// cancelled, and throw ``DataLoadingError/cancelled``; they bound what they hand over by
    /// their own size limit.
    func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse

    /// What, besides the source itself, decides the bytes this loader returns for `source`:
    /// for example the account whose token ``AuthorizingDataLoader`` attaches. It becomes
    /// part of every cache key, so two accounts never share an image. Default: `nil`.
    func cachePartition(for source: ImageSource) -> String?
}

extension DataLoading {
    public func cachePartition(for source: ImageSource) -> String? { nil }

    /// Loads every byte of `source`, reporting progress as they arrive: ``response(for:)``
    /// read to its end.
    ///
    /// ```swift
    /// let bytes = try await DataLoader().loadData(for: .url(photoURL)) { print($0.completed) }
    /// ```
    public func loadData(
        for source: ImageSource,
        progress: @escaping @Sendable (DataProgress) -> Void = { _ in }
    ) async throws(DataLoadingError) -> [UInt8] {
        try await response(for: source).bytes(progress: progress)
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
