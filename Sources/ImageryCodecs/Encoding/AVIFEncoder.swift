#if AVIF
import CAvif
import Imagery

/// AVIF encoding through libavif and aom: 8-bit 4:2:0, full range, sRGB signalled, alpha only
/// when the image has transparency, and a source's EXIF, XMP and profile when kept.
///
/// libavif 0.11 takes quantizers (0 best … 63 worst), not a quality. ``quantizer(quality:)`` maps
/// imgproxy's 1–100 onto them the way libheif and later libavif do, so the same `q` means the
/// same thing whichever of them wrote the file.
enum AVIFEncoder {
    /// `(100 − q) × 63 / 100`, rounded: q 100 is quantizer 0, q 1 is 62.
    static func quantizer(quality: Int) -> Int32 {
        Int32(((100 - min(100, max(1, quality))) * 63 + 50) / 100)
    }

    /// - Parameter metadata: EXIF, XMP and the ICC profile to carry (AVIF has no place for
    ///   IPTC), as items libavif writes beside the image.
    static func encode(_ bitmap: Bitmap, quality: Int, speed: Int, metadata: EmbeddedMetadata? = nil) throws(ImageError) -> [UInt8] {
        guard let image = avifImageCreate(UInt32(bitmap.width), UInt32(bitmap.height), 8, AVIF_PIXEL_FORMAT_YUV420) else {
            throw .encodingFailed(.avif, detail: "libavif could not allocate an image")
        }
        defer { avifImageDestroy(image) }
        image.pointee.yuvRange = AVIF_RANGE_FULL
        image.pointee.colorPrimaries = avifColorPrimaries(AVIF_COLOR_PRIMARIES_BT709)
        image.pointee.transferCharacteristics = avifTransferCharacteristics(AVIF_TRANSFER_CHARACTERISTICS_SRGB)
        image.pointee.matrixCoefficients = avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_BT601)
        let opaque = bitmap.alphaMode == .opaque || !bitmap.hasTransparency
        let converted = bitmap.pixels.withUnsafeBufferPointer { pixels in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = 8
            rgb.ignoreAlpha = opaque ? 1 : 0
            rgb.pixels = UnsafeMutablePointer(mutating: pixels.baseAddress)
            rgb.rowBytes = UInt32(bitmap.bytesPerRow)
            return avifImageRGBToYUV(image, &rgb)
        }
        guard converted == AVIF_RESULT_OK else { throw Self.error(converted, stage: "converting to YUV") }
        if let exif = metadata?.exif { exif.withUnsafeBufferPointer { avifImageSetMetadataExif(image, $0.baseAddress, $0.count) } }
        if let xmp = metadata?.xmp { xmp.withUnsafeBufferPointer { avifImageSetMetadataXMP(image, $0.baseAddress, $0.count) } }
        // A `prof` colour box beside the `nclx` one; readers that manage colour take the profile.
        if let icc = metadata?.iccProfile, !icc.isEmpty { icc.withUnsafeBufferPointer { avifImageSetProfileICC(image, $0.baseAddress, $0.count) } }

        guard let encoder = avifEncoderCreate() else { throw .encodingFailed(.avif, detail: "libavif could not allocate an encoder") }
        defer { avifEncoderDestroy(encoder) }
        // One encode, one thread: the server runs as many encodes as it has cores.
        encoder.pointee.maxThreads = 1
        encoder.pointee.speed = Int32(speed)
        let quantizer = Self.quantizer(quality: quality)
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
        var output = avifRWData(data: nil, size: 0)
        defer { avifRWDataFree(&output) }
        let written = avifEncoderWrite(encoder, image, &output)
        guard written == AVIF_RESULT_OK, let data = output.data, output.size > 0 else { throw Self.error(written, stage: "encoding") }
        return Array(UnsafeBufferPointer(start: data, count: output.size))
    }

    static func error(_ result: avifResult, stage: String) -> ImageError {
        .encodingFailed(.avif, detail: "libavif: \(String(cString: avifResultToString(result))) (while \(stage))")
    }
}
#endif
