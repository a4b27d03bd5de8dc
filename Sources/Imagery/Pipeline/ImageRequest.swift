import Foundation

/// What to load and how to present it: the source, the target size, the processors, the
/// priority and the cache options, all as typed properties.
///
/// ```swift
/// var request = ImageRequest(url: url, resize: .fit(width: 256, height: 256))
/// request.priority = .high
/// request.options.insert(.reloadIgnoringCachedData)
/// request.cacheIdentity = url.deletingQuery     // presigned URLs: drop the volatile signature
/// ```
public struct ImageRequest: Sendable, CustomStringConvertible {
    /// Where the bytes come from.
    public var source: ImageSource
    /// What the decode makes of the bytes: size, damage policy, orientation, embedded
    /// thumbnail, metadata kept and frames, as one value that every cache key and the decode
    /// stage's coalescing hold whole. The properties below of the same names read and write it.
    /// Default: ``DecodeOptions/init()``.
    ///
    /// ```swift
    /// var request = ImageRequest(url: url, resize: .fit(width: 256, height: 256))
    /// request.decodeOptions.keptMetadata = [.exif]
    /// ```
    public var decodeOptions = DecodeOptions()
    /// The size to present the image at, or `nil` for the full-size image. Decoding reduces
    /// while it decodes when it can (JPEG DCT scaling), so a thumbnail never costs a full decode.
    public var resize: Resize? {
        get { decodeOptions.resize }
        set { decodeOptions.resize = newValue }
    }
    /// Whether a source smaller than ``resize`` is enlarged. Default: `false`.
    public var allowsUpscaling: Bool {
        get { decodeOptions.allowsUpscaling }
        set { decodeOptions.allowsUpscaling = newValue }
    }
    /// How soon this request's work runs among waiting work. Default: ``Priority/normal``.
    public var priority: Priority = .normal
    /// Cache behaviour. Default: none set (read and write the memory cache).
    public var options: Options = []
    /// Replaces the source's identity in cache keys and for coalescing: for example a stable
    /// photo id for a presigned URL whose query changes. Credentials in the source's headers
    /// stay part of the key whatever this says. Default: `nil`, the source's own identity.
    public var cacheIdentity: String?
    /// Whether damaged data yields an error or a flagged partial image. Default: `.strict`.
    public var decodingPolicy: DecodingPolicy {
        get { decodeOptions.policy }
        set { decodeOptions.policy = newValue }
    }
    /// The largest image accepted, checked against the header before any pixel memory is
    /// allocated. A memory-cache entry whose source is larger is not returned either.
    /// Not one of the ``decodeOptions``: it decides whether an image is decoded, not what the
    /// image is, so cache keys leave it out. Default: 100 megapixels.
    public var maximumPixelCount: Int = 100_000_000
    /// Whether the source's EXIF orientation tag is ignored and its pixels taken as stored
    /// (``DecodingOptions/ignoresEXIFOrientation``, imgproxy's `auto_rotate:0`). Part of every
    /// cache key. Default: `false`, the image is turned upright.
    ///
    /// ```swift
    /// request.ignoresEXIFOrientation = true
    /// ```
    public var ignoresEXIFOrientation: Bool {
        get { decodeOptions.ignoresEXIFOrientation }
        set { decodeOptions.ignoresEXIFOrientation = newValue }
    }
    /// Whether an embedded thumbnail is decoded whenever the source has one (HEIC), even one
    /// smaller than ``resize`` (``DecodingOptions/prefersEmbeddedThumbnail``, imgproxy's
    /// `enforce_thumbnail`). Part of every cache key. Default: `false`.
    ///
    /// ```swift
    /// var request = ImageRequest(url: heicURL, resize: .fit(width: 320, height: 320))
    /// request.prefersEmbeddedThumbnail = true
    /// ```
    public var prefersEmbeddedThumbnail: Bool {
        get { decodeOptions.prefersEmbeddedThumbnail }
        set { decodeOptions.prefersEmbeddedThumbnail = newValue }
    }
    /// Which of the source's own metadata blocks the response keeps, in
    /// ``ImageMetadata/embedded`` (``DecodingOptions/keptMetadata``): what an image server
    /// writes back into its output (imgproxy's `strip_metadata:0`, `keep_copyright`,
    /// `strip_color_profile:0`). Part of every cache key. Default: none.
    ///
    /// ```swift
    /// var request = ImageRequest(url: photoURL, resize: .fit(width: 1600, height: 1600))
    /// request.keptMetadata = [.exif, .colorProfile]
    /// ```
    public var keptMetadata: KeptMetadata {
        get { decodeOptions.keptMetadata }
        set { decodeOptions.keptMetadata = newValue }
    }
    /// Whether an animated source (GIF, WebP) is decoded whole, under these limits: every
    /// frame resized and processed, returned in ``ImageResponse/animation`` and cached so.
    /// Default: `nil`, the first frame only, as a still.
    ///
    /// ```swift
    /// request.animation = AnimationLimits(maximumFrameCount: 120)
    /// ```
    public var animation: AnimationLimits? {
        get { decodeOptions.animation }
        set { decodeOptions.animation = newValue }
    }
    /// What to do to the image after it is decoded and resized, in order: crops, blurs,
    /// rounded corners, the app's own effects. Their identifiers are part of every cache key,
    /// so requests that differ only here share the download and the decode, and each
    /// distinct list is processed once. Default: none.
    ///
    /// ```swift
    /// var request = ImageRequest(url: avatarURL, resize: .fill(width: 96, height: 96))
    /// request.processors = [.circle]
    /// ```
    public var processors: [any ImageProcessing] = []
    /// A ThumbHash or BlurHash that views show, decoded, in their first frame while the image
    /// loads. Not part of any cache key: it is a preview of the same image. Default: none.
    ///
    /// ```swift
    /// request.placeholder = PlaceholderHash(thumbHashBase64: "1QcSHQRnh493V4dIh4eXh1h4kJUI")
    /// ```
    public var placeholder: PlaceholderHash?
    /// Whether this request gets previews while its image downloads (progressive JPEG scans,
    /// at its size); `nil` follows the pipeline's
    /// ``ImagePipeline/Configuration/isProgressiveDecodingEnabled``. A request that joins a
    /// download already under way without previews gets none. Not part of any cache key.
    /// Default: `nil`.
    ///
    /// ```swift
    /// var request = ImageRequest(url: heroURL, resize: .fit(width: 1200, height: 800))
    /// request.progressivePreviews = true
    /// ```
    public var progressivePreviews: Bool?

    /// A request for `source`, presented at `resize`.
    public init(source: ImageSource, resize: Resize? = nil, priority: Priority = .normal) {
        self.source = source
        self.decodeOptions.resize = resize
        self.priority = priority
    }

    /// A request for an `http(s)` or `file` URL.
    public init(url: URL, resize: Resize? = nil, priority: Priority = .normal) {
        self.init(source: .url(url), resize: resize, priority: priority)
    }

    /// A request for a URL given as a string, as it comes from JSON or a database.
    ///
    /// ```swift
    /// let request = ImageRequest(url: "https://example.com/a.jpg", resize: .fit(width: 256, height: 256))
    /// ```
    ///
    /// A string that is not a URL gives a request that fails, when loaded, with
    /// ``DataLoadingError/unsupportedSource(_:)`` naming it; it never traps.
    public init(url string: String, resize: Resize? = nil, priority: Priority = .normal) {
        let source: ImageSource = if let url = URL(string: string), url.scheme != nil {
            .url(url)
        } else {
            .custom(id: "invalid-url:" + string) { throw DataLoadingError.unsupportedSource("not a URL: \(string)") }
        }
        self.init(source: source, resize: resize, priority: priority)
    }

    public var description: String {
        var text = resize.map { "\(source) [\($0)]" } ?? source.description
        if !processors.isEmpty { text += " [\(processors.cacheIdentifier)]" }
        return text
    }
}

extension ImageRequest {
    /// Five levels of urgency; waiting work starts highest first, and first come first
    /// served within a level.
    public enum Priority: Int, Sendable, Hashable, Comparable, CaseIterable {
        case veryLow = 0, low, normal, high, veryHigh

        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

        var taskPriority: TaskPriority {
            switch self {
            case .veryLow, .low: .low
            case .normal: .medium
            case .high, .veryHigh: .high
            }
        }
    }

    /// Per-request cache behaviour.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Do not look in the memory cache (the result is still stored).
        public static let skipMemoryCacheRead = Options(rawValue: 1 << 0)
        /// Do not store the result in the memory cache.
        public static let skipMemoryCacheWrite = Options(rawValue: 1 << 1)
        /// Do not look in the disk cache (the result is still stored).
        public static let skipDiskCacheRead = Options(rawValue: 1 << 2)
        /// Do not store the bytes or the processed image in the disk cache.
        public static let skipDiskCacheWrite = Options(rawValue: 1 << 3)
        /// Fetch the bytes again even if a cached image exists, and replace it.
        public static let reloadIgnoringCachedData: Options = [.skipMemoryCacheRead, .skipDiskCacheRead]
    }
}
