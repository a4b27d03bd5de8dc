/// What identifies a processed image in the memory cache: the source identity (with any
/// loader partition such as an account) and the processing applied to it.
///
/// ```swift
/// let key = ImageCacheKey(ImageRequest(url: url, resize: .fit(width: 256, height: 256)))
/// pipeline.cache[key] = nil   // forget one entry
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

    init(sourceKey: String, resize: Resize?, allowsUpscaling: Bool, policy: DecodingPolicy) {
        self.sourceKey = sourceKey
        self.resize = resize
        self.allowsUpscaling = allowsUpscaling
        self.policy = policy
    }

    public var description: String {
        var text = sourceKey
        if let resize { text += " [\(resize)\(allowsUpscaling ? ", upscaling" : "")]" }
        if policy == .lenient { text += " [lenient]" }
        return text
    }
}
