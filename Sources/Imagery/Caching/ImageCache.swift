import Foundation
import Metrics
import Synchronization

/// The memory cache: processed images by ``ImageCacheKey``, least recently used first out,
/// bounded by total byte cost and by count, with an optional time to live.
///
/// Lookups are synchronous and take one uncontended lock, so any thread or actor can ask
/// without suspending and a list cell can show a hit in the frame it is configured.
/// Every operation is O(1).
///
/// ```swift
/// let cache = ImageCache(costLimit: 200 << 20, countLimit: 500, timeToLive: .seconds(600))
/// cache[key] = response
/// if let hit = cache[key] { show(hit.image) }
/// cache.removeAll()
/// ```
public final class ImageCache: Sendable {
    /// Byte cost above which the least recently used entries are evicted.
    public let costLimit: Int
    /// Entry count above which the least recently used entries are evicted.
    public let countLimit: Int
    /// How long an entry stays valid after it was stored, or `nil` for no limit.
    public let timeToLive: Duration?

    private let storage: Locked<LRUStorage<ImageCacheKey, ImageResponse>>
    private let now: @Sendable () -> ContinuousClock.Instant
    /// The cache's own counts: evictions are the cache's business, not its callers'.
    private let evictions = Atomic<Int>(0)
    private let evictionCounter: Counter

    /// The default cost limit: 15% of physical memory, at most 1 GiB. An app's decoded
    /// images are its largest memory user; more than this tends to invite the system's
    /// memory-pressure killer on phones, and a server has better uses for its RAM.
    public static var defaultCostLimit: Int {
        let physical = Int(clamping: ProcessInfo.processInfo.physicalMemory)
        return min(physical / 100 * 15, 1 << 30)
    }

    /// A cache bounded by `costLimit` bytes and `countLimit` entries.
    ///
    /// - Parameters:
    ///   - costLimit: total bytes of pixels kept. Default: ``defaultCostLimit``.
    ///   - countLimit: entries kept. Default: 1,000.
    ///   - timeToLive: how long an entry is served after it was stored. Default: `nil`, forever.
    ///   - now: the clock for the time to live; tests inject one they control.
    ///   - metricsPrefix: the prefix of its swift-metrics counter, `imagery_memory_evictions_total`.
    ///     Default: `"imagery"`.
    public init(
        costLimit: Int = ImageCache.defaultCostLimit,
        countLimit: Int = 1000,
        timeToLive: Duration? = nil,
        now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        metricsPrefix: String = "imagery"
    ) {
        self.costLimit = costLimit
        self.countLimit = countLimit
        self.timeToLive = timeToLive
        self.now = now
        self.storage = Locked(LRUStorage())
        self.evictionCounter = Counter(label: "\(metricsPrefix)_memory_evictions_total")
    }

    /// Entries evicted to stay within the cost and count limits, since the cache was made.
    public var evictionCount: Int { evictions.load(ordering: .relaxed) }

    /// The cached response for `key` (with ``ImageResponse/Origin/memory``), marking it most
    /// recently used; `nil` if absent or expired. Setting `nil` removes the entry. O(1).
    public subscript(key: ImageCacheKey) -> ImageResponse? {
        get {
            let deadline = timeToLive == nil ? nil : now()
            return storage.withLock { $0.value(for: key, expiringBefore: deadline) }
        }
        set {
            if let newValue {
                store(newValue, for: key)
            } else {
                storage.withLock { _ = $0.remove(key) }
            }
        }
    }

    private func store(_ response: ImageResponse, for key: ImageCacheKey) {
        // Whatever it was when stored, what comes back out is a memory hit.
        var response = response
        response.origin = .memory
        let cost = response.animation?.byteCount ?? response.animationStream?.byteCount ?? response.image.pixels.count
        guard cost <= costLimit else { return }
        let expiry = timeToLive.map { now() + $0 }
        let evicted = storage.withLock { storage in
            storage.insert(response, for: key, cost: cost, expiry: expiry)
            return storage.trim(costLimit: costLimit, countLimit: countLimit)
        }
        if evicted > 0 {
            evictions.add(evicted, ordering: .relaxed)
            evictionCounter.increment(by: evicted)
        }
    }

    /// Removes every entry.
    public func removeAll() {
        storage.withLock { $0.removeAll() }
    }

    /// The number of entries (expired ones included until they are next looked up or evicted).
    public var count: Int { storage.withLock { $0.count } }

    /// The total byte cost of the entries.
    public var totalCost: Int { storage.withLock { $0.totalCost } }
}
