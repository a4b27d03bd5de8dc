/// One download shared by every decode job that needs the same source.
@PipelineActor
final class FetchJob {
    let key: String
    let source: ImageSource
    /// The decode jobs waiting for the bytes.
    var waiters: [ObjectIdentifier: DecodeJob] = [:]
    /// The `data(for:)` callers waiting for the same bytes.
    var dataTasks: [UInt64: DataTask] = [:]
    var item: WorkQueue.Item?
    var work: Task<Void, Never>?
    var progress: DataProgress?

    init(key: String, source: ImageSource) {
        self.key = key
        self.source = source
    }

    var priority: ImageRequest.Priority {
        max(waiters.values.lazy.map(\.priority).max() ?? .veryLow, dataTasks.values.lazy.map(\.priority).max() ?? .veryLow)
    }

    /// Whether nobody waits for the bytes any more.
    var isAbandoned: Bool { waiters.isEmpty && dataTasks.isEmpty }

    /// The options of some waiter, for the disk read (the fetch stage has no key of its own
    /// for them yet).
    var options: ImageRequest.Options {
        waiters.values.first?.request.options ?? dataTasks.values.first?.request.options ?? []
    }
}

/// One decode (and resize) shared by every caller with the same ``ImageCacheKey``.
@PipelineActor
final class DecodeJob {
    let key: ImageCacheKey
    let request: ImageRequest
    var tasks: [UInt64: ImageTask] = [:]
    var fetch: FetchJob?
    var item: WorkQueue.Item?
    var work: Task<Void, Never>?
    /// Where the bytes being decoded came from: the source, or the disk tier.
    var origin: ImageResponse.Origin = .source
    /// Whether the bytes being decoded are a stored processed image (so there is nothing to store).
    var decodedStoredProcessed = false
    /// The highest priority among ``tasks``, kept current by the graph.
    var priority: ImageRequest.Priority

    init(key: ImageCacheKey, request: ImageRequest) {
        self.key = key
        self.request = request
        self.priority = request.priority
    }

    func highestTaskPriority() -> ImageRequest.Priority {
        tasks.values.lazy.map(\.priority).max() ?? .veryLow
    }
}
