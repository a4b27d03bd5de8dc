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
    /// The processing, or `nil` for the full-size decoded image.
    public let resize: Resize?
    /// Whether upscaling was allowed.
    public let allowsUpscaling: Bool
    /// The damage policy, since a lenient decode may differ from a strict one.
    public let policy: DecodingPolicy
    /// The processors' identifiers in order, joined by `|`; empty for none.
    public let processors: String
    /// The animation limits when the request asked for animation, else `nil` (the first frame).
    public let animation: AnimationLimits?
    /// Whether the EXIF orientation was ignored (``ImageRequest/ignoresEXIFOrientation``).
    public let ignoresEXIFOrientation: Bool
    /// Whether an embedded thumbnail was preferred (``ImageRequest/prefersEmbeddedThumbnail``).
    public let prefersEmbeddedThumbnail: Bool
    /// The source's metadata blocks kept (``ImageRequest/keptMetadata``).
    public let keptMetadata: KeptMetadata
    /// `sourceKey`'s hash, computed once per ``ImageSource`` rather than on every lookup:
    /// hashing a URL-length string is most of the cost of a memory-cache hit.
    private let sourceHash: Int

    init(sourceKey: String, sourceHash: Int? = nil, resize: Resize?, allowsUpscaling: Bool, policy: DecodingPolicy, processors: String = "",
         animation: AnimationLimits? = nil, ignoresEXIFOrientation: Bool = false, prefersEmbeddedThumbnail: Bool = false,
         keptMetadata: KeptMetadata = []) {
        self.sourceKey = sourceKey
        self.sourceHash = sourceHash ?? sourceKey.hashValue
        self.resize = resize
        self.allowsUpscaling = allowsUpscaling
        self.policy = policy
        self.processors = processors
        self.animation = animation
        self.ignoresEXIFOrientation = ignoresEXIFOrientation
        self.prefersEmbeddedThumbnail = prefersEmbeddedThumbnail
        self.keptMetadata = keptMetadata
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(sourceHash)
        hasher.combine(resize)
        hasher.combine(allowsUpscaling)
        hasher.combine(policy)
        // Most keys have no processors, and a hit should not hash even an empty string.
        // Equal keys take the same branch, so the hash stays consistent with ==.
        if !processors.isEmpty { hasher.combine(processors) }
        if let animation { hasher.combine(animation) }
        if ignoresEXIFOrientation || prefersEmbeddedThumbnail || !keptMetadata.isEmpty {
            hasher.combine(ignoresEXIFOrientation)
            hasher.combine(prefersEmbeddedThumbnail)
            hasher.combine(keptMetadata.rawValue)
        }
    }

    public static func == (lhs: ImageCacheKey, rhs: ImageCacheKey) -> Bool {
        lhs.sourceHash == rhs.sourceHash && lhs.resize == rhs.resize && lhs.allowsUpscaling == rhs.allowsUpscaling
            && lhs.policy == rhs.policy && lhs.processors == rhs.processors && lhs.animation == rhs.animation
            && lhs.ignoresEXIFOrientation == rhs.ignoresEXIFOrientation && lhs.prefersEmbeddedThumbnail == rhs.prefersEmbeddedThumbnail
            && lhs.keptMetadata == rhs.keptMetadata
            && lhs.sourceKey == rhs.sourceKey
    }

    /// The disk-cache key of the processed image.
    var processedDataKey: String {
        var key = sourceKey + "#" + (resize?.identifier ?? "original")
        if allowsUpscaling { key += "+upscaling" }
        if policy == .lenient { key += "+lenient" }
        if ignoresEXIFOrientation { key += "+exif-orientation-ignored" }
        if prefersEmbeddedThumbnail { key += "+embedded-thumbnail" }
        if !keptMetadata.isEmpty { key += "+metadata:\(keptMetadata.rawValue)" }
        if !processors.isEmpty { key += "#" + processors }
        if let animation {
            key += "#animation:\(animation.maximumFrameCount):\(animation.maximumFramePixelCount ?? 0)"
            if animation.delivery == .stream { key += ":stream" }
        }
        return key
    }

    public var description: String {
        var text = sourceKey
        if let resize { text += " [\(resize)\(allowsUpscaling ? ", upscaling" : "")]" }
        if policy == .lenient { text += " [lenient]" }
        if ignoresEXIFOrientation { text += " [EXIF orientation ignored]" }
        if prefersEmbeddedThumbnail { text += " [embedded thumbnail]" }
        if !keptMetadata.isEmpty { text += " [metadata kept]" }
        if !processors.isEmpty { text += " [\(processors)]" }
        if animation != nil { text += " [animated]" }
        return text
    }
}
