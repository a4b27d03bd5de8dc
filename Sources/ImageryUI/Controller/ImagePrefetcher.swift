import Imagery

/// Loads the images of rows about to scroll into view into the memory cache, at low priority,
/// and stops those that scroll away again: the logic behind Imagery's UIKit prefetching data
/// source, with no UIKit in it.
///
/// Each request starts once however often it is asked for, and not at all when the memory
/// cache already has it. A cell that shows a prefetched request joins the same load (or finds
/// it cached), at its own, higher, priority.
///
/// ```swift
/// let prefetcher = ImagePrefetcher(pipeline: pipeline)
/// prefetcher.startPrefetching(upcoming.map(\.thumbnail))
/// prefetcher.stopPrefetching(scrolledAway.map(\.thumbnail))
/// ```
@MainActor
public final class ImagePrefetcher {
    /// The pipeline prefetched into.
    public let pipeline: ImagePipeline
    /// The priority prefetches load at. Default: `ImageRequest.Priority.low`.
    public var priority: ImageRequest.Priority = .low

    private var tasks: [ImageCacheKey: (serial: Int, task: ImageTask)] = [:]
    private var serial = 0

    /// A prefetcher into `pipeline`.
    public init(pipeline: ImagePipeline = .shared) {
        self.pipeline = pipeline
    }

    isolated deinit {
        stopAll()
    }

    /// How many prefetches are under way.
    public var count: Int { tasks.count }

    /// Starts loading `requests` that are neither cached nor already being prefetched.
    public func startPrefetching(_ requests: [ImageRequest]) {
        for var request in requests {
            let key = pipeline.cacheKey(for: request)
            guard tasks[key] == nil, pipeline.cachedImage(for: request, key: key) == nil else { continue }
            request.priority = priority
            serial += 1
            let serial = self.serial
            let task = pipeline.imageTask(with: request, onEvent: { _ in }, onFinish: { [weak self] _ in
                Task { @MainActor in self?.finished(key, serial: serial) }
            })
            tasks[key] = (serial, task)
        }
    }

    /// Stops prefetching `requests`; work a view shares goes on for the view.
    public func stopPrefetching(_ requests: [ImageRequest]) {
        for request in requests {
            tasks.removeValue(forKey: pipeline.cacheKey(for: request))?.task.cancel()
        }
    }

    /// Stops every prefetch.
    public func stopAll() {
        let running = tasks
        tasks = [:]
        for entry in running.values { entry.task.cancel() }
    }

    private func finished(_ key: ImageCacheKey, serial: Int) {
        if tasks[key]?.serial == serial { tasks[key] = nil }
    }
}
