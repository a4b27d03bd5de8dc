#if WebP
import CWebP
import Imagery

/// WebP through libwebp (the `WebP` package trait): lossy, lossless and alpha, and the first
/// frame of an animation (composed by ``WebPAnimationReader``; the decoder's
/// `decodeAnimation` reads them all). A draft decode uses libwebp's own scaler to the largest
/// integer reduction that still covers the draft.
struct WebPDecoder: FormatDecoding {
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .corrupt(.webp, detail: "libwebp version mismatch") }
        let status = WebPGetFeatures(bytes.baseAddress, bytes.count, &config.input)
        guard status == VP8_STATUS_OK else { throw Self.error(status, stage: "reading the header") }
        let width = Int(config.input.width), height = Int(config.input.height)
        try options.checkPixelLimit(width: width, height: height)
        if config.input.has_animation != 0 { return try firstFrame(bytes, options: options) }
        let chunks = RIFFChunks(bytes)
        let exif = chunks.exif.flatMap { ExifReader.orientation(in: $0) } ?? .up
        let orientation = options.appliedOrientation(exif: exif)
        let hasAlpha = config.input.has_alpha != 0

        let scale = options.draftScale(storedSize: PixelSize(width: width, height: height), orientation: orientation)
        let factor = DecodingOptions.boxFactor(forScale: scale)
        var outWidth = width, outHeight = height
        if factor > 1 {
            outWidth = max(1, (width + factor - 1) / factor)
            outHeight = max(1, (height + factor - 1) / factor)
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(outWidth)
            config.options.scaled_height = Int32(outHeight)
        }
        var pixels = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        let decodeStatus = pixels.withUnsafeMutableBufferPointer { buffer in
            config.output.colorspace = MODE_RGBA
            config.output.is_external_memory = 1
            config.output.u.RGBA.rgba = buffer.baseAddress
            config.output.u.RGBA.stride = Int32(outWidth * 4)
            config.output.u.RGBA.size = buffer.count
            defer { WebPFreeDecBuffer(&config.output) }
            return WebPDecode(bytes.baseAddress, bytes.count, &config)
        }
        guard decodeStatus == VP8_STATUS_OK else { throw Self.error(decodeStatus, stage: "decoding") }
        let metadata = ImageMetadata(
            format: .webp, originalWidth: width, originalHeight: height, sourceOrientation: exif,
            decodeScale: Double(outWidth) / Double(width)
        )
        let bitmap = Bitmap(
            width: outWidth, height: outHeight, pixels: pixels,
            alphaMode: hasAlpha ? .straight : .opaque, orientation: orientation, metadata: metadata
        )
        return DecodedImage(bitmap: bitmap, iccProfile: chunks.icc)
    }

    /// An animation's first frame, box-reduced to the draft.
    private func firstFrame(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        let reader = try WebPAnimationReader(Array(bytes), options: options)
        guard let frame = try reader.nextFrame()?.image else { throw .corrupt(.webp, detail: "the animation has no frame") }
        let factor = DecodingOptions.boxFactor(forScale: options.draftScale(storedSize: reader.canvasSize, orientation: .up))
        return DecodedImage(bitmap: RowCollector.reduced(frame, factor: factor), iccProfile: RIFFChunks(bytes).icc)
    }

    static func error(_ status: VP8StatusCode, stage: String) -> ImageError {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: .truncated(.webp, detail: "not enough data (while \(stage))")
        case VP8_STATUS_UNSUPPORTED_FEATURE: .unsupportedFormat(.webp, reason: "libwebp does not support a feature of this file")
        case VP8_STATUS_OUT_OF_MEMORY: .corrupt(.webp, detail: "libwebp ran out of memory (while \(stage))")
        default: .corrupt(.webp, detail: "libwebp status \(status.rawValue) (while \(stage))")
        }
    }
}
#endif
