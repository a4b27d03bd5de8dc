/// A loaded image and where it came from.
///
/// ```swift
/// let response = try await pipeline.response(for: request)
/// print(response.image.width, response.origin)   // 256 memory
/// ```
public struct ImageResponse: Sendable {
    /// Where an image was found.
    public enum Origin: String, Sendable, Hashable {
        /// The memory cache.
        case memory
        /// The disk cache.
        case disk
        /// The data source (network, file, closure): it was downloaded and decoded.
        case source
    }

    /// The decoded, processed, upright sRGB image.
    public var image: Bitmap
    /// Every frame, resized and processed, when the request asked for animation
    /// (``ImageRequest/animation``) and the source is animated; ``image`` is its first frame.
    public var animation: AnimatedImage?
    /// The animation as a stream of frames decoded and processed when they are read, when the
    /// request asked for ``AnimationLimits/Delivery-swift.enum/stream``; ``image`` is its poster.
    public var animationStream: AnimationStream?
    /// Where it came from.
    public var origin: Origin
    /// What the source's response said about its bytes (type, `Cache-Control`, `Expires`,
    /// `Last-Modified`, `ETag`), as the loader returned them, kept in the memory cache with the
    /// image: what a server needs to pass freshness on. Empty when the bytes came from the disk
    /// cache (it keeps bytes only: an original or a processed image read from it has none), from
    /// a file, or from a custom source.
    ///
    /// ```swift
    /// let response = try await pipeline.response(for: request)
    /// if let modified = response.sourceHeaders.lastModified { print("changed \(modified)") }
    /// ```
    public var sourceHeaders = SourceHeaders()
    /// What decoding learned about the source (format, original size, orientation, profile).
    public var metadata: ImageMetadata { image.metadata }

    /// A response carrying `image`, found at `origin`.
    public init(image: Bitmap, origin: Origin) {
        self.image = image
        self.origin = origin
    }

    /// A response carrying `animation`, found at `origin`; ``image`` is its first frame.
    public init(animation: AnimatedImage, origin: Origin) {
        self.image = animation.poster
        self.animation = animation
        self.origin = origin
    }

    /// A response carrying `stream`, found at `origin`; ``image`` is its poster.
    public init(stream: AnimationStream, origin: Origin) {
        self.image = stream.poster
        self.animationStream = stream
        self.origin = origin
    }

    /// This response with `headers` as its ``sourceHeaders``.
    func carrying(_ headers: SourceHeaders) -> ImageResponse {
        var response = self
        response.sourceHeaders = headers
        return response
    }

    /// Whether the source was animated and the request asked for its animation.
    public var isAnimated: Bool { animation != nil || animationStream != nil }
}
