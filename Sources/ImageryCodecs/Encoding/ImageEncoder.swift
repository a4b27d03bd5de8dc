import CImageryCodecs
import Imagery

/// The default encoder: JPEG (quality 1–100), PNG, GIF (Imagery's own, a palette per frame),
/// BMP (24-bit, or 32-bit with alpha) and ICO (PNG in an icon, scaled to fit 256 × 256), and
/// with package traits WebP (`WebP`), AVIF (`AVIF`, through libavif and aom; see the AVIF
/// article for how `quality` maps to its quantizers), HEIC (`HEIF`, through libheif and x265,
/// `quality` as libheif takes it), JPEG XL (`JPEGXL`, through libjxl: `quality` maps to a
/// distance as `cjxl -q` maps it, ``lossless`` writes it losslessly, ``jxlEffort`` trades time
/// for size) and TIFF (`TIFF`, through libtiff, lossless: LZW by default, see
/// ``tiffCompression``). GIF and WebP also write animations
/// (``encode(_:)-(AnimatedImage)``). JPEG may be progressive (``jpegProgressive``), PNG
/// interlaced (``pngInterlaced``), and a lossy WebP still tuned (``webpEffort``,
/// ``webpPreset``).
///
/// JPEG has no alpha, so transparent images are flattened over ``background`` first.
///
/// ```swift
/// let jpeg = try ImageEncoder(format: .jpeg, quality: 85).encode(thumbnail)
/// let png = try ImageEncoder(format: .png).encode(thumbnail)
/// let gif = try ImageEncoder(format: .gif).encode(animation)
/// ```
public struct ImageEncoder: ImageEncoding {
    /// The format written.
    public let format: ImageFormat

    /// ``format``, whatever the bitmap.
    public func format(for bitmap: Bitmap) -> ImageFormat { format }
    /// 1–100 for JPEG, lossy WebP, AVIF, HEIC and lossy JPEG XL; ignored by PNG. Default 85.
    public var quality: Int
    /// Lossless WebP or JPEG XL instead of lossy. Default `false`.
    public var lossless: Bool
    /// What transparent pixels are composited over for formats without alpha. Default white.
    public var background: RGBA
    /// aom's speed for AVIF, 0 (slowest, smallest) to 10 (fastest); ignored by other formats.
    /// Default 9: on the benchmark of Benchmarks/README.md it writes files smaller than WebP's
    /// at equal SSIM in less time than WebP takes; 8 saves a little more at about three times
    /// the time, and 10 writes what 9 writes with Debian's aom.
    ///
    /// ```swift
    /// var encoder = try ImageEncoder(format: .avif, quality: 60)
    /// encoder.avifSpeed = 6     // smaller files, more time
    /// ```
    public var avifSpeed: Int = 9 {
        didSet { avifSpeed = min(10, max(0, avifSpeed)) }
    }
    /// How TIFF output is compressed; ignored by other formats. Default ``TIFFCompression/lzw``,
    /// with horizontal differencing: lossless, and read by every TIFF reader.
    ///
    /// ```swift
    /// var encoder = try ImageEncoder(format: .tiff)
    /// encoder.tiffCompression = .deflate   // smaller files, slower to write
    /// ```
    public var tiffCompression: TIFFCompression = .lzw
    /// Progressive JPEG (libjpeg's simple progression): a browser shows a coarse whole image
    /// first and sharpens it as the rest arrives, and the file is usually a little smaller, at
    /// more time to encode and decode. Ignored by other formats. Default `false`, baseline.
    ///
    /// ```swift
    /// var encoder = try ImageEncoder(format: .jpeg, quality: 80)
    /// encoder.jpegProgressive = true
    /// ```
    public var jpegProgressive = false
    /// Adam7-interlaced PNG: a browser shows the whole image coarsely after the first pass,
    /// at the cost of a larger file. Ignored by other formats. Default `false`.
    ///
    /// ```swift
    /// var encoder = try ImageEncoder(format: .png)
    /// encoder.pngInterlaced = true
    /// ```
    public var pngInterlaced = false
    /// An indexed PNG of at most this many colours (2 to 256; clamped to that range), chosen by
    /// median cut without dithering, as imgproxy's `IMGPROXY_PNG_QUANTIZE` does with its own
    /// quantizer: often a third of the size of a photo's truecolour PNG, and far less for a logo
    /// or a chart. An image whose alpha is all on or off keeps it as the palette's one
    /// transparent entry; an image with partial alpha (soft edges, shadows) is written in
    /// truecolour, because one transparent entry would cut those edges hard. Ignored by other
    /// formats. Default `nil`: truecolour.
    ///
    /// ```swift
    /// var encoder = try ImageEncoder(format: .png)
    /// encoder.pngQuantizationColors = 64
    /// ```
    public var pngQuantizationColors: Int?
    /// Metadata blocks written into each still, byte for byte: EXIF, XMP and the ICC profile in
    /// JPEG, PNG, WebP and AVIF, IPTC in JPEG; other formats write none. An image server sets what it
    /// keeps of its source's (``EmbeddedMetadata/keeping(_:)``, imgproxy's `strip_metadata:0`
    /// and `keep_copyright`). An ICC profile describes the pixels, so give one only to pixels in
    /// its colours (decoded with ``KeptMetadata/colorProfile``). Default `nil`: none.
    ///
    /// ```swift
    /// var encoder = try ImageEncoder(format: .jpeg, quality: 82)
    /// encoder.embeddedMetadata = photo.metadata.embedded
    /// ```
    public var embeddedMetadata: EmbeddedMetadata?
    /// libwebp's effort for a lossy still (its `method`), 0 (fastest) to 6 (smallest files);
    /// clamped to that range. Ignored by other formats, by lossless WebP and by animations,
    /// which keep libwebp's defaults. Default 4, libwebp's own.
    ///
    /// ```swift
    /// var encoder = try ImageEncoder(format: .webp, quality: 80)
    /// encoder.webpEffort = 6   // smaller files, more time
    /// ```
    public var webpEffort = 4 {
        didSet { webpEffort = min(6, max(0, webpEffort)) }
    }
    /// What a lossy WebP still is tuned for (see ``WebPPreset``). Ignored where ``webpEffort``
    /// is. Default ``WebPPreset/default``.
    public var webpPreset = WebPPreset.default
    /// libjxl's effort, 1 (fastest) to 9 (smallest files); clamped to that range. Ignored by
    /// other formats. Default 4, imgproxy's.
    ///
    /// ```swift
    /// var encoder = try ImageEncoder(format: .jxl, quality: 77)
    /// encoder.jxlEffort = 7   // smaller files, more time
    /// ```
    public var jxlEffort = 4 {
        didSet { jxlEffort = min(9, max(1, jxlEffort)) }
    }

    /// - Throws: `ImageError.unsupportedFormat` if this build cannot write `format`.
    public init(format: ImageFormat, quality: Int = 85, lossless: Bool = false, background: RGBA = .white) throws(ImageError) {
        guard Self.supportedFormats.contains(format) else {
            throw .unsupportedFormat(format, reason: [.webp, .avif, .heic, .jxl, .tiff].contains(format)
                ? "this build writes no \(format) (build with --traits \(format.packageTrait))" : "no encoder for \(format)")
        }
        guard (1...100).contains(quality) else { throw .invalidRequest("quality \(quality) is outside 1...100") }
        self.format = format
        self.quality = quality
        self.lossless = lossless
        self.background = background
    }

    /// The formats this build can encode.
    public static var supportedFormats: Set<ImageFormat> {
        var formats: Set<ImageFormat> = [.jpeg, .png, .gif, .bmp, .ico]
        #if WebP
        formats.insert(.webp)
        #endif
        #if AVIF
        formats.insert(.avif)
        #endif
        #if HEIF
        formats.insert(.heic)
        #endif
        #if JPEGXL
        formats.insert(.jxl)
        #endif
        #if TIFF
        formats.insert(.tiff)
        #endif
        return formats
    }

    /// Encodes `bitmap`, which should be upright (see `Bitmap.oriented()`), with
    /// ``embeddedMetadata`` written in where the format takes it.
    public func encode(_ bitmap: Bitmap) throws(ImageError) -> [UInt8] {
        let bytes = try encodePixels(bitmap)
        guard let embeddedMetadata else { return bytes }
        return try embeddedMetadata.written(into: bytes, format: format)
    }

    private func encodePixels(_ bitmap: Bitmap) throws(ImageError) -> [UInt8] {
        switch format {
        case .jpeg:
            return try encodeJPEG(bitmap.flattened(over: background))
        case .png:
            return try encodePNG(bitmap.withStraightAlpha())
        case .gif:
            return try GIFEncoder.encode(bitmap)
        case .bmp:
            return try BMPEncoder.encode(bitmap)
        case .ico:
            return try ICOEncoder.encode(bitmap) { image throws(ImageError) in try encodePNG(image.withStraightAlpha()) }
        #if WebP
        case .webp:
            return try WebPEncoder.encode(bitmap.withStraightAlpha(), quality: quality, lossless: lossless, effort: webpEffort, preset: webpPreset)
        #endif
        #if AVIF
        case .avif:
            return try AVIFEncoder.encode(bitmap.withStraightAlpha(), quality: quality, speed: avifSpeed, metadata: embeddedMetadata)
        #endif
        #if HEIF
        case .heic:
            return try HEIFEncoder.encode(bitmap.withStraightAlpha(), quality: quality)
        #endif
        #if JPEGXL
        case .jxl:
            return try JPEGXLEncoder.encode(bitmap.withStraightAlpha(), quality: quality, lossless: lossless, effort: jxlEffort)
        #endif
        #if TIFF
        case .tiff:
            return try TIFFEncoder.encode(bitmap.withStraightAlpha(), compression: tiffCompression)
        #endif
        default:
            throw .unsupportedFormat(format, reason: "no encoder for \(format)")
        }
    }

    /// The formats this build writes animations in: GIF, and WebP with its trait.
    public static var animatedFormats: Set<ImageFormat> {
        #if WebP
        [.gif, .webp]
        #else
        [.gif]
        #endif
    }

    /// Encodes every frame of `animation`, with its durations and loop count, as GIF or WebP.
    ///
    /// ```swift
    /// let webp = try ImageEncoder(format: .webp, quality: 80).encode(animation)
    /// ```
    ///
    /// - Throws: `ImageError.unsupportedFormat` for a format that holds no animation here
    ///   (encode `AnimatedImage/poster` for a still).
    public func encode(_ animation: AnimatedImage) throws(ImageError) -> [UInt8] {
        var writer = try animationWriter(loopCount: animation.loopCount)
        for frame in animation.frames { try writer.add(frame) }
        return try writer.finish()
    }

    /// A writer that encodes an animation played `loopCount` times (0: for ever) frame by
    /// frame, in ``format`` at ``quality``: the way to encode an `AnimationStream`.
    ///
    /// ```swift
    /// var writer = try ImageEncoder(format: .webp).animationWriter(loopCount: 0)
    /// for frame in frames { try writer.add(frame) }
    /// let webp = try writer.finish()
    /// ```
    ///
    /// - Throws: `ImageError.unsupportedFormat` for a format that holds no animation here.
    public func animationWriter(loopCount: Int) throws(ImageError) -> AnimationWriter {
        try AnimationWriter(format: format, loopCount: loopCount, quality: quality, lossless: lossless)
    }

    private func encodeJPEG(_ bitmap: Bitmap) throws(ImageError) -> [UInt8] {
        try Self.collect(.jpeg) { out, length, message, capacity in
            bitmap.pixels.withUnsafeBufferPointer {
                img_jpeg_encode($0.baseAddress, Int32(bitmap.width), Int32(bitmap.height), bitmap.bytesPerRow,
                                Int32(quality), jpegProgressive ? 1 : 0, out, length, message, capacity)
            }
        }
    }

    private func encodePNG(_ bitmap: Bitmap) throws(ImageError) -> [UInt8] {
        if let colours = pngQuantizationColors, !bitmap.hasPartialAlpha {
            var quantizer = MedianCutQuantizer()
            quantizer.maximumColours = min(max(colours, 2), 256)
            let indexed = quantizer.quantize(bitmap)
            return try Self.collect(.png) { out, length, message, capacity in
                indexed.indices.withUnsafeBufferPointer { indices in
                    indexed.palette.withUnsafeBufferPointer { palette in
                        img_png_encode_indexed(indices.baseAddress, UInt32(bitmap.width), UInt32(bitmap.height), palette.baseAddress,
                                               Int32(palette.count / 3), Int32(indexed.transparentIndex ?? -1), pngInterlaced ? 1 : 0,
                                               out, length, message, capacity)
                    }
                }
            }
        }
        // Opaque images are written as RGB: a quarter smaller and faster to compress. libpng
        // drops the alpha bytes as it writes each row, so no RGB copy of the image is made.
        if bitmap.alphaMode == .opaque || !bitmap.hasTransparency {
            return try Self.collect(.png) { out, length, message, capacity in
                bitmap.pixels.withUnsafeBufferPointer {
                    img_png_encode_dropping_alpha($0.baseAddress, UInt32(bitmap.width), UInt32(bitmap.height), bitmap.bytesPerRow,
                                                  pngInterlaced ? 1 : 0, out, length, message, capacity)
                }
            }
        }
        return try Self.collect(.png) { out, length, message, capacity in
            bitmap.pixels.withUnsafeBufferPointer {
                img_png_encode($0.baseAddress, UInt32(bitmap.width), UInt32(bitmap.height), bitmap.bytesPerRow,
                               4, pngInterlaced ? 1 : 0, out, length, message, capacity)
            }
        }
    }

    /// Runs a C encoder that mallocs its output, and copies it into Swift memory.
    private static func collect(
        _ format: ImageFormat,
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>, UnsafeMutablePointer<CChar>, Int) -> ImgStatus
    ) throws(ImageError) -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = message.withUnsafeMutableBufferPointer { body(&out, &length, $0.baseAddress!, $0.count) }
        defer { img_free(out) }
        guard status == IMG_OK, let out else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw .encodingFailed(format, detail: text.isEmpty ? "status \(status.rawValue)" : text)
        }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }
}
