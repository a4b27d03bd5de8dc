/// How a decoder treats its input: limits, damage policy and size hints.
///
/// ```swift
/// var options = DecodingOptions()
/// options.draft = .fit(width: 256, height: 256)   // decode small when the codec can
/// options.maximumPixelCount = 50_000_000
/// let bitmap = try ImageDecoder().decode(data, options: options)
/// ```
public struct DecodingOptions: Sendable, Hashable {
    /// The largest image, in pixels, a decoder accepts. Checked against the header before
    /// any pixel memory is allocated. Default: 100 megapixels.
    public var maximumPixelCount: Int = 100_000_000

    /// What to do with truncated or damaged data. Default: ``DecodingPolicy/strict``.
    public var policy: DecodingPolicy = .strict

    /// The size the caller will resize to, so the decoder may decode smaller (JPEG DCT scaling,
    /// box reduction while rows stream in). The result is still large enough to produce
    /// `draft` without upscaling, and its ``ImageMetadata/decodeScale`` records the reduction.
    /// Default: `nil`, a full-size decode.
    public var draft: Resize?

    /// How much larger than a resize's target, per side, a decode straight to a size asks the
    /// codec for (`Thumbnailer`, and the pipeline's ``ImageRequest/resize``). With 2 (the
    /// default) the Lanczos stage that follows has at least 2× to anti-alias with, and stays
    /// close to a full decode. With 1 the codec decodes to the target itself: faster, but DCT
    /// scaling's block averaging then aliases on medium images (Benchmarks/README.md compares
    /// the two by PSNR).
    ///
    /// ```swift
    /// options.draftHeadroom = 1   // speed over fine detail, e.g. for tiny previews
    /// ```
    public var draftHeadroom: Int = 2

    /// Whether to apply the EXIF orientation to the pixels. Default: `true`.
    public var appliesOrientation: Bool = true

    /// Whether the EXIF orientation tag is ignored, as if the file had none: the pixels are
    /// taken as stored, upright (imgproxy's `auto_rotate:0`). The tag is still reported in
    /// ``ImageMetadata/sourceOrientation``. A container's own transform (AVIF's `irot` and
    /// `imir`, which the format requires readers to apply) is not EXIF and still applies.
    /// Default: `false`.
    ///
    /// ```swift
    /// options.ignoresEXIFOrientation = true   // a scan whose tag is known to be wrong
    /// ```
    public var ignoresEXIFOrientation: Bool = false

    /// Whether a decoder uses an embedded thumbnail whenever the file has one, even one smaller
    /// than ``draft`` (imgproxy's `enforce_thumbnail`): HEIC's, through libheif. Without it, a
    /// thumbnail is used only when it covers the draft. Default: `false`.
    ///
    /// ```swift
    /// options.prefersEmbeddedThumbnail = true   // an iPhone photo's 320 px preview, decoded in a millisecond
    /// ```
    public var prefersEmbeddedThumbnail: Bool = false

    /// Whether a decoder may reduce while decoding to cover ``draft`` (JPEG's DCT scaling, a box
    /// over streamed PNG rows, libwebp's scaling, HEIC's thumbnails). `false` decodes at full
    /// size and leaves the whole reduction to the resize that follows (imgproxy's
    /// `IMGPROXY_DISABLE_SHRINK_ON_LOAD`): slower and heavier, for the last bit of fidelity.
    /// Default: `true`.
    public var reducesWhileDecoding: Bool = true

    /// Whether the resize to ``draft``'s size filters colour in linear light (imgproxy's
    /// `IMGPROXY_USE_LINEAR_COLORSPACE`): a fine pattern keeps its brightness, where filtering
    /// sRGB's values darkens it, at some cost in time. The reduction while decoding (see
    /// ``reducesWhileDecoding``) stays in sRGB, as imgproxy's shrink-on-load does. Default: `false`.
    ///
    /// ```swift
    /// var options = DecodingOptions()
    /// options.resizesInLinearLight = true
    /// ```
    public var resizesInLinearLight: Bool = false

    /// Whether to convert pixels with an embedded RGB matrix/TRC ICC profile to sRGB. Default: `true`.
    public var convertsToSRGB: Bool = true

    /// Which of the source's own metadata blocks are read into ``ImageMetadata/embedded``
    /// (JPEG, PNG, WebP and AVIF sources carry EXIF and XMP, JPEG IPTC too; every decoder
    /// reads the ICC profile). Keeping ``KeptMetadata/colorProfile`` also leaves the pixels
    /// unconverted, in the profile's colours, whatever ``convertsToSRGB`` says. Default: none.
    ///
    /// ```swift
    /// var options = DecodingOptions()
    /// options.keptMetadata = [.exif]
    /// let photo = try ImageDecoder().decode(bytes, options: options)
    /// photo.metadata.embedded?.exif
    /// ```
    public var keptMetadata: KeptMetadata = []

    /// Whether pixels are converted to sRGB: not where their profile is kept with them.
    package var convertsColor: Bool { convertsToSRGB && !keptMetadata.contains(.colorProfile) }

    /// The most scans a progressive JPEG may have; more is treated as hostile. Default: 1,000
    /// (ordinary files have about 10).
    public var maximumProgressiveScans: Int = 1000

    /// The frame limits of ``ImageDecoding/decodeAnimation(_:resize:allowsUpscaling:options:)``.
    /// Default: ``AnimationLimits/init(maximumFrameCount:maximumFramePixelCount:delivery:)``'s.
    public var animation = AnimationLimits()

    /// The defaults: 100 MP limit, strict policy, no draft, orientation and sRGB conversion on.
    public init() {}
}

/// What a decoder does when data is truncated or damaged.
public enum DecodingPolicy: Sendable, Hashable {
    /// Throw ``ImageError/truncated(_:detail:)`` or ``ImageError/corrupt(_:detail:)``:
    /// a half image is never returned. The default.
    case strict
    /// Return what could be decoded (libjpeg fills missing data with grey), with the damage
    /// listed in ``ImageMetadata/warnings``. Data too damaged to yield anything still throws.
    case lenient
}

/// Decodes image bytes into a ``Bitmap``: the pluggable decoding stage.
///
/// ```swift
/// struct MyDecoder: ImageDecoding {
///     func decode(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> Bitmap { ... }
/// }
/// let pipeline = ImagePipeline(configuration: .init(decoder: MyDecoder()))
/// ```
public protocol ImageDecoding: Sendable {
    /// Decodes `data`, honouring `options`. The result is in sRGB, with orientation applied
    /// unless `options.appliesOrientation` is `false`.
    func decode(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> Bitmap

    /// Decodes `data` at the size `resize` asks for, upright and in sRGB. A default
    /// implementation decodes a draft and resizes it; codecs override it to reduce while
    /// decoding and to orient and convert colour after resizing, on fewer pixels.
    func decode(_ data: [UInt8], resize: Resize, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> Bitmap

    /// Decodes every frame of an animated source (within `options.animation`), each composed,
    /// upright, in sRGB and resized as `resize` asks; `nil` when `data` is not an animation
    /// (one frame, or a format without animation), so the caller decodes it as a still.
    /// The default implementation returns `nil`.
    func decodeAnimation(_ data: [UInt8], resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> AnimatedImage?

    /// The same frames as ``decodeAnimation(_:resize:allowsUpscaling:options:)``, read one at a
    /// time as an ``AnimationStream``: the header and limits are checked and the first frame
    /// decoded now, the rest when they are read. `nil` when `data` is not an animation. The
    /// default implementation returns `nil`.
    func animationStream(_ data: [UInt8], resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> AnimationStream?

    /// A decoder of previews for an image whose bytes are still arriving, at the scale
    /// `resize` needs, or `nil` when this decoder makes none (the default). See
    /// ``ProgressiveDecoding``.
    func progressiveDecoder(resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions) -> (any ProgressiveDecoding)?
}

extension ImageDecoding {
    /// No animation: every source decodes as a still.
    public func decodeAnimation(_ data: [UInt8], resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> AnimatedImage? {
        nil
    }

    /// No animation: every source decodes as a still.
    public func animationStream(_ data: [UInt8], resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> AnimationStream? {
        nil
    }

    public func progressiveDecoder(resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions) -> (any ProgressiveDecoding)? {
        nil
    }
}

/// Encodes a ``Bitmap`` into bytes: the pluggable encoding stage.
public protocol ImageEncoding: Sendable {
    /// The format this encoder writes for `bitmap` (an encoder may choose by content: the
    /// cache encoder writes PNG for images with alpha and JPEG for the rest).
    func format(for bitmap: Bitmap) -> ImageFormat
    /// Encodes `bitmap` (which should be upright: call ``Bitmap/oriented()`` first).
    func encode(_ bitmap: Bitmap) throws(ImageError) -> [UInt8]
}
