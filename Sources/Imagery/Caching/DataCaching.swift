/// Stores encoded bytes by key across launches: the pluggable second cache tier, behind the
/// memory cache and in front of the data source.
///
/// Every method may do I/O, so every method is `async`; implementations run it off the
/// caller's executor and never make a read wait for a write.
///
/// ```swift
/// let disk = try DiskCache(directory: cachesURL.appendingPathComponent("images").path)
/// await disk.storeData(bytes, for: "https://example.com/a.jpg")
/// let again = await disk.cachedData(for: "https://example.com/a.jpg")
/// ```
public protocol DataCaching: Sendable {
    /// The bytes stored for `key`, or `nil` when there are none, they expired, or they failed
    /// their integrity check (in which case they are also removed).
    func cachedData(for key: String) async -> [UInt8]?
    /// Stores `data` for `key`, replacing what was there. Returns once the entry is durable.
    func storeData(_ data: [UInt8], for key: String) async
    /// Removes the entry for `key`, if any.
    func removeData(for key: String) async
    /// Removes every entry.
    func removeAll() async
    /// The cache's own counts, in the `disk…` fields of the pipeline's statistics type:
    /// ``ImagePipeline/statistics`` takes its evictions, rejections, misses and failures from
    /// here. Default: zeros.
    var statistics: ImagePipeline.Statistics { get }
}

extension DataCaching {
    public var statistics: ImagePipeline.Statistics { ImagePipeline.Statistics() }
}

/// What the pipeline keeps in its ``DataCaching`` tier.
///
/// ```swift
/// configuration.dataCachePolicy = .both   // thumbnails without a decode, new sizes without a download
/// ```
public enum DataCachePolicy: Sendable, Hashable {
    /// The downloaded bytes, keyed by source: any size can be made again without a download.
    case originalData
    /// The processed image, encoded, keyed by source, decode options and processors: a warm
    /// thumbnail needs no decode of the large original. Full-size unprocessed requests are not stored (re-encoding a full-size image
    /// would cost more than it saves).
    case processedImages
    /// Both.
    case both
    /// Processed images for requests with a ``ImageRequest/resize`` or
    /// ``ImageRequest/processors``, original bytes for full-size unprocessed requests (whose processed form would be the original decoded again). The
    /// default: thumbnails are where a disk hit saves the most (a small decode instead of a
    /// large one) and cost the least space.
    case automatic

    func storesOriginal(isProcessed: Bool) -> Bool {
        switch self {
        case .originalData, .both: true
        case .processedImages: false
        case .automatic: !isProcessed
        }
    }

    func storesProcessed(isProcessed: Bool) -> Bool {
        guard isProcessed else { return false }
        switch self {
        case .processedImages, .both, .automatic: return true
        case .originalData: return false
        }
    }
}
