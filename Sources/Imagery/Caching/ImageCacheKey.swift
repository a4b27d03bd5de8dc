/// What identifies a processed image in the memory cache: the source identity (with any
/// loader partition such as an account), the decode options and the processors applied.
///
/// ```swift
/// let key = pipeline.cacheKey(for: ImageRequest(url: url, resize: .fit(width: 256, height: 256)))
/// pipeline.cache?[key] = nil   // forget one entry
/// ```
public struct ImageCacheKey: Sendable, Hashable, CustomStringConvertible {
    /// The source identity, including a loader's cache partition.
    public let sourceKey: String
    /// What the decode made of the source (``ImageRequest/decodeOptions``): its size, damage
    /// policy, orientation, thumbnail, metadata and frames.
    public let decodeOptions: ImageRequest.DecodeOptions
    /// The processors' identifiers in order, joined by `|`; empty for none.
    public let processors: String
    /// `sourceKey`'s hash, computed once per ``ImageSource`` rather than on every lookup:
    /// hashing a URL-length string is most of the cost of a memory-cache hit.
    private let sourceHash: Int

    init(sourceKey: String, sourceHash: Int? = nil, decodeOptions: ImageRequest.DecodeOptions = .init(), processors: String = "") {
        self.sourceKey = sourceKey
        self.sourceHash = sourceHash ?? sourceKey.hashValue
        self.decodeOptions = decodeOptions
        self.processors = processors
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sourceHash)
        hasher.combine(decodeOptions)
        // Most keys have no processors, and a hit should not hash even an empty string.
        // Equal keys take the same branch, so the hash stays consistent with ==.
        if !processors.isEmpty { hasher.combine(processors) }
    }

    public static func == (lhs: ImageCacheKey, rhs: ImageCacheKey) -> Bool {
        // The source key, a URL-length string, last: keys that differ mostly differ before it.
        lhs.sourceHash == rhs.sourceHash && lhs.decodeOptions == rhs.decodeOptions
            && lhs.processors == rhs.processors && lhs.sourceKey == rhs.sourceKey
    }

    /// The disk-cache key of the processed image.
    var processedDataKey: String {
        decodeOptions.processedDataKey(sourceKey: sourceKey, processors: processors)
    }

    public var description: String {
        decodeOptions.description(sourceKey: sourceKey, processors: processors)
    }
}

// The decode options under the names keys had before they were one value, for callers that
// read them so.
extension ImageCacheKey {
    /// The processing, or `nil` for the full-size decoded image (``ImageRequest/DecodeOptions/resize``).
    public var resize: Resize? { decodeOptions.resize }
    /// Whether upscaling was allowed (``ImageRequest/DecodeOptions/allowsUpscaling``).
    public var allowsUpscaling: Bool { decodeOptions.allowsUpscaling }
    /// The damage policy, since a lenient decode may differ from a strict one
    /// (``ImageRequest/DecodeOptions/policy``).
    public var policy: DecodingPolicy { decodeOptions.policy }
    /// The animation limits when the request asked for animation, else `nil` (the first frame).
    public var animation: AnimationLimits? { decodeOptions.animation }
    /// Whether the EXIF orientation was ignored (``ImageRequest/ignoresEXIFOrientation``).
    public var ignoresEXIFOrientation: Bool { decodeOptions.ignoresEXIFOrientation }
    /// Whether an embedded thumbnail was preferred (``ImageRequest/prefersEmbeddedThumbnail``).
    public var prefersEmbeddedThumbnail: Bool { decodeOptions.prefersEmbeddedThumbnail }
    /// The source's metadata blocks kept (``ImageRequest/keptMetadata``).
    public var keptMetadata: KeptMetadata { decodeOptions.keptMetadata }
}
