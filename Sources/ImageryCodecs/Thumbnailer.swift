import Foundation
import Imagery

/// Makes a display-sized image from encoded bytes the fast way: the decoder reduces while
/// decoding (JPEG DCT scaling, box reduction of streamed PNG rows, libwebp scaling), a
/// Lanczos-3 pass takes it to the exact size, and colour conversion and EXIF orientation
/// are applied to the small result.
///
/// ```swift
/// let thumbnailer = Thumbnailer(resize: .fit(width: 256, height: 256))
/// let bitmap = try thumbnailer.thumbnail(from: bytes)
/// let jpeg = try thumbnailer.thumbnailData(from: bytes, encoder: ImageEncoder(format: .jpeg))
/// ```
public struct Thumbnailer: Sendable {
    /// The target size, in display orientation.
    public var resize: Resize
    /// Whether sources smaller than the target are enlarged. Default `false`.
    public var allowsUpscaling: Bool
    /// Decoder limits and damage policy; `draft` is set from ``resize``.
    public var decodingOptions: DecodingOptions
    /// Run in order on the upright thumbnail, as `ImageRequest/processors` are. They run
    /// synchronously: an `ImageProcessors/AsyncClosure` fails here (use a pipeline).
    public var processors: [any ImageProcessing]

    /// A thumbnailer for `resize`, with default decoding limits and the strict policy.
    ///
    /// ```swift
    /// let avatar = Thumbnailer(resize: .fill(width: 96, height: 96), processors: [.circle])
    /// ```
    public init(
        resize: Resize, allowsUpscaling: Bool = false, decodingOptions: DecodingOptions = DecodingOptions(),
        processors: [any ImageProcessing] = []
    ) {
        self.resize = resize
        self.allowsUpscaling = allowsUpscaling
        self.decodingOptions = decodingOptions
        self.processors = processors
    }

    /// Decodes and resizes `data` into an upright sRGB bitmap, then runs ``processors``.
    /// ``thumbnail(from:)-([UInt8])`` for `Data`, as `Data(contentsOf:)` and URLSession give it.
    ///
    /// ```swift
    /// let thumbnail = try Thumbnailer(resize: .fit(width: 256, height: 256)).thumbnail(from: try Data(contentsOf: photoURL))
    /// ```
    public func thumbnail(from data: Data) throws(ImageError) -> Bitmap {
        try thumbnail(from: [UInt8](data))
    }

    public func thumbnail(from data: [UInt8]) throws(ImageError) -> Bitmap {
        try thumbnail(from: data, decoder: ImageDecoder())
    }

    /// ``thumbnail(from:)-([UInt8])`` through `decoder` (its SVG limits).
    func thumbnail(from data: [UInt8], decoder: ImageDecoder) throws(ImageError) -> Bitmap {
        var options = decodingOptions
        // A vector source renders at the size asked for, larger than its own too, as imgproxy
        // renders one whatever `enlarge` says: there is no draft to leave headroom in.
        let isVector = ImageFormat(sniffing: data) == .svg
        options.draft = isVector ? resize : allowsUpscaling ? nil : Self.draft(for: resize, headroom: decodingOptions.draftHeadroom)
        let decoded = try decoder.decodeStored(data, options: options)
        let icc = decoded.iccProfile
        var thumbnail: Bitmap
        if isVector {
            // A rendered SVG carries no orientation to apply.
            thumbnail = try Self.fitted((consume decoded).bitmap, resize)
        } else {
            // Turned upright as the resampler stores its rows, and converted in place: colour
            // conversion is per pixel, so its order with the turn changes no pixel, and an
            // enlargement holds one image of its output's size, not three.
            thumbnail = try (consume decoded).bitmap.resized(
                resize, allowsUpscaling: allowsUpscaling, orienting: decodingOptions.appliesOrientation, linearLight: decodingOptions.resizesInLinearLight
            )
        }
        ImageDecoder.convertColor(&thumbnail, iccProfile: icc, enabled: decodingOptions.convertsColor)
        for processor in processors { thumbnail = try processor.process(thumbnail) }
        return thumbnail
    }

    /// A render already at `resize`'s size as it is, and any other (a fill's crop, a render
    /// the pixel limit shrank) resized.
    static func fitted(_ bitmap: Bitmap, _ resize: Resize) throws(ImageError) -> Bitmap {
        let original = bitmap.metadata.originalSize
        let plan = try resize.plan(for: original, allowsUpscaling: true)
        let whole = plan.sourceRect.width == Double(original.width) && plan.sourceRect.height == Double(original.height)
        guard whole, plan.outputSize == PixelSize(width: bitmap.width, height: bitmap.height) else {
            return try bitmap.resized(resize, allowsUpscaling: true)
        }
        var exact = bitmap
        exact.metadata.decodeScale = 1
        return exact
    }

    /// The draft asked of the decoder: by default twice the target, so that after DCT or box
    /// reduction the Lanczos-3 stage still has at least 2× to work with and does the
    /// anti-aliasing. Asking for the target itself leaves as little as 1× on medium images, where
    /// the block averaging of DCT scaling aliases (Benchmarks/README.md compares the two).
    static func draft(for resize: Resize, headroom: Int = 2) -> Resize { resize.scaled(by: max(1, headroom)) }

    /// Decodes every frame of an animated GIF or WebP, each resized and processed as
    /// ``thumbnail(from:)-([UInt8])`` does a still; `nil` for a still image. The frame limits
    /// are ``decodingOptions``' `animation`.
    ///
    /// ```swift
    /// let thumbnailer = Thumbnailer(resize: .fit(width: 320, height: 320))
    /// if let animation = try thumbnailer.animatedThumbnail(from: gifBytes) {
    ///     let webp = try ImageEncoder(format: .webp).encode(animation)
    /// }
    /// ```
    public func animatedThumbnail(from data: [UInt8]) throws(ImageError) -> AnimatedImage? {
        guard let animation = try ImageDecoder().decodeAnimation(
            data, resize: resize, allowsUpscaling: allowsUpscaling, options: decodingOptions
        ) else { return nil }
        return try animation.mapFrames { (frame: Bitmap) throws(ImageError) -> Bitmap in
            var frame = frame
            for processor in processors { frame = try processor.process(frame) }
            return frame
        }
    }

    /// Decodes, resizes and encodes `data`.
    public func thumbnailData(from data: [UInt8], encoder: some ImageEncoding) throws(ImageError) -> [UInt8] {
        try encoder.encode(thumbnail(from: data))
    }
}

extension Thumbnailer {
    /// The slow reference for quality measurements: a full-resolution decode, then one
    /// Lanczos-3 pass straight to `size` over the whole image, then colour and orientation.
    /// `size` is in display orientation.
    package func referenceThumbnail(from data: [UInt8], size: PixelSize) throws(ImageError) -> Bitmap {
        var options = decodingOptions
        options.draft = nil
        let decoded = try ImageDecoder().decodeStored(data, options: options)
        let full = decoded.bitmap
        let stored = full.orientation.swapsAxes ? PixelSize(width: size.height, height: size.width) : size
        let plan = ResizePlan(
            outputSize: stored,
            sourceRect: SourceRect(x: 0, y: 0, width: Double(full.width), height: Double(full.height))
        )
        let resized = full.resampled(plan)
        return ImageDecoder.convertColor(DecodedImage(bitmap: resized, iccProfile: decoded.iccProfile), enabled: true).oriented()
    }
}
