#if AVIF
import CAvif
import Imagery

/// AVIF through libavif with dav1d (the `AVIF` package trait): the first image (or frame), with
/// alpha and its ICC profile.
///
/// libavif reports the container's `irot` and `imir` but does not apply them, so they become
/// the bitmap's `Bitmap/orientation`, applied as for JPEG. An EXIF orientation tag inside the
/// file is ignored, as browsers ignore it. AV1 has no reduced decode, so a draft decodes at full
/// size and is box-reduced before it is returned; the pixel limit is libavif's own
/// `imageSizeLimit` too, so no frame over it is allocated.
struct AVIFDecoder: FormatDecoding {
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        guard let decoder = avifDecoderCreate() else { throw .corrupt(.avif, detail: "libavif could not allocate a decoder") }
        defer { avifDecoderDestroy(decoder) }
        // One decode, one thread: the server runs as many decodes as it has cores.
        decoder.pointee.maxThreads = 1
        decoder.pointee.imageSizeLimit = UInt32(clamping: options.maximumPixelCount)
        decoder.pointee.ignoreExif = 1
        decoder.pointee.ignoreXMP = 1
        // Real files often lack the `pixi` box strict mode requires; browsers decode them.
        decoder.pointee.strictFlags = avifStrictFlags(AVIF_STRICT_DISABLED.rawValue)
        try Self.check(avifDecoderSetIOMemory(decoder, bytes.baseAddress, bytes.count), stage: "reading the input")
        try Self.check(avifDecoderParse(decoder), stage: "reading the container", decoder: decoder)
        guard let parsed = decoder.pointee.image else { throw .corrupt(.avif, detail: "no image") }
        let width = Int(parsed.pointee.width), height = Int(parsed.pointee.height)
        try options.checkPixelLimit(width: width, height: height)
        try Self.check(avifDecoderNextImage(decoder), stage: "decoding", decoder: decoder)
        guard let image = decoder.pointee.image else { throw .corrupt(.avif, detail: "no image") }
        guard Int(image.pointee.width) == width, Int(image.pointee.height) == height else {
            throw .corrupt(.avif, detail: "the decoded frame is not the size the header declares")
        }

        let hasAlpha = image.pointee.alphaPlane != nil
        var full = [UInt8](repeating: 0, count: width * height * 4)
        let status = full.withUnsafeMutableBufferPointer { buffer in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = 8
            rgb.pixels = buffer.baseAddress
            rgb.rowBytes = UInt32(width * 4)
            return avifImageYUVToRGB(image, &rgb)
        }
        try Self.check(status, stage: "converting to RGB")

        let orientation = Self.orientation(
            flags: image.pointee.transformFlags, rotation: image.pointee.irot.angle, mirror: image.pointee.imir.mode
        )
        // AV1 decodes whole; a box stage takes a draft down before the thumbnail's Lanczos.
        let scale = options.draftScale(storedSize: PixelSize(width: width, height: height), orientation: orientation)
        let factor = DecodingOptions.boxFactor(forScale: scale)
        let (pixels, size) = factor == 1 ? (full, PixelSize(width: width, height: height)) : full.withUnsafeBufferPointer { buffer in
            RowCollector.collect(
                plane: buffer.baseAddress!, stride: width * 4, width: width, height: height, channels: 4, factor: factor, hasAlpha: hasAlpha
            )
        }
        let metadata = ImageMetadata(
            format: .avif, originalWidth: width, originalHeight: height, sourceOrientation: orientation,
            decodeScale: Double(size.width) / Double(width)
        )
        let bitmap = Bitmap(
            width: size.width, height: size.height, pixels: pixels,
            alphaMode: hasAlpha ? (image.pointee.alphaPremultiplied != 0 ? .premultiplied : .straight) : .opaque,
            orientation: orientation, metadata: metadata
        )
        let icc = image.pointee.icc
        let profile = icc.size > 0 && icc.size < 4 << 20 ? Array(UnsafeBufferPointer(start: icc.data, count: icc.size)) : nil
        return DecodedImage(bitmap: bitmap, iccProfile: profile)
    }

    /// The EXIF orientation equal to HEIF's `irot` (quarter turns anticlockwise) followed by
    /// `imir` (mode 0 exchanges top and bottom, 1 left and right), the order MIAF requires.
    static func orientation(flags: avifTransformFlags, rotation: UInt8, mirror: UInt8) -> ImageOrientation {
        let turns = flags & avifTransformFlags(AVIF_TRANSFORM_IROT.rawValue) != 0 ? Int(rotation & 3) : 0
        let mirrored = flags & avifTransformFlags(AVIF_TRANSFORM_IMIR.rawValue) != 0
        let exif: [Int]
        switch (mirrored, mirror) {
        case (false, _): exif = [1, 8, 3, 6]
        case (true, 1): exif = [2, 7, 4, 5]
        default: exif = [4, 5, 2, 7]
        }
        return ImageOrientation(exifValue: exif[turns])
    }

    static func check(_ result: avifResult, stage: String, decoder: UnsafeMutablePointer<avifDecoder>? = nil) throws(ImageError) {
        guard result != AVIF_RESULT_OK else { return }
        var message = String(cString: avifResultToString(result))
        // libavif says what it refused in its diagnostics (a size over the limit, a bad box).
        if let decoder {
            let detail = withUnsafeBytes(of: decoder.pointee.diag.error) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !detail.isEmpty { message += ": " + detail }
        }
        switch result {
        case AVIF_RESULT_TRUNCATED_DATA: throw .truncated(.avif, detail: "\(message) (while \(stage))")
        case AVIF_RESULT_NO_CODEC_AVAILABLE, AVIF_RESULT_NOT_IMPLEMENTED:
            throw .unsupportedFormat(.avif, reason: "libavif: \(message)")
        default: throw .corrupt(.avif, detail: "libavif: \(message) (while \(stage))")
        }
    }
}
#endif
