#if JPEGXL
import CJxl
import Imagery

/// JPEG XL encoding through libjxl (the `JPEGXL` package trait): one lossy still in sRGB, or a
/// lossless one, 8 bits a channel, with alpha only when the image has transparency.
///
/// libjxl 0.7 takes a Butteraugli distance, not a quality, and has no function to convert one;
/// ``distance(quality:)`` maps imgproxy's 1–100 onto it as later libjxl releases do
/// (`JxlEncoderDistanceFromQuality`, which `cjxl -q` follows from q 30 up).
enum JPEGXLEncoder {
    /// The distance for `quality`: from q 30 up, a line through q 90 at distance 1 (visually
    /// lossless) and q 100 at 0.1 (not 0, which libjxl treats as lossless only in its lossless
    /// mode); below, a parabola that meets it at q 30 and reaches 25, libjxl's largest, towards
    /// q 0.
    static func distance(quality: Int) -> Float {
        let q = Double(min(100, max(1, quality)))
        let distance = q >= 30 ? 0.1 + (100 - q) * 0.09 : 53.0 / 3000.0 * q * q - 23.0 / 20.0 * q + 25.0
        return Float(distance)
    }

    static func encode(_ bitmap: Bitmap, quality: Int, lossless: Bool, effort: Int) throws(ImageError) -> [UInt8] {
        guard let encoder = JxlEncoderCreate(nil) else { throw .encodingFailed(.jxl, detail: "libjxl could not allocate an encoder") }
        defer { JxlEncoderDestroy(encoder) }
        // No parallel runner: one encode, one thread; the server runs as many as it has cores.
        let opaque = bitmap.alphaMode == .opaque || !bitmap.hasTransparency
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(bitmap.width)
        info.ysize = UInt32(bitmap.height)
        info.bits_per_sample = 8
        info.num_color_channels = 3
        info.alpha_bits = opaque ? 0 : 8
        info.num_extra_channels = opaque ? 0 : 1
        info.uses_original_profile = lossless ? 1 : 0
        try check(JxlEncoderSetBasicInfo(encoder, &info), encoder, stage: "setting the image's size")
        var color = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&color, 0)
        try check(JxlEncoderSetColorEncoding(encoder, &color), encoder, stage: "setting sRGB")

        guard let settings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
            throw .encodingFailed(.jxl, detail: "libjxl could not allocate frame settings")
        }
        try check(JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(min(9, max(1, effort)))), encoder, stage: "setting the effort")
        if lossless {
            try check(JxlEncoderSetFrameLossless(settings, 1), encoder, stage: "choosing lossless")
        } else {
            try check(JxlEncoderSetFrameDistance(settings, distance(quality: quality)), encoder, stage: "setting the distance")
        }

        // Straight RGBA rows as they are (libjxl reads rows `bytesPerRow` apart when told to
        // align them to it), or packed RGB for an opaque image.
        let pixels: [UInt8]
        var format: JxlPixelFormat
        if opaque {
            var packed = [UInt8](repeating: 0, count: bitmap.width * bitmap.height * 3)
            packed.withUnsafeMutableBufferPointer { packed in
                bitmap.copyRows(to: packed.baseAddress!, stride: bitmap.width * 3, keepingAlpha: false)
            }
            pixels = packed
            format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        } else {
            pixels = bitmap.pixels
            format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: bitmap.bytesPerRow)
        }
        let added = pixels.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        try check(added, encoder, stage: "adding the image")
        JxlEncoderCloseInput(encoder)

        var output = [UInt8](repeating: 0, count: max(4096, bitmap.width * bitmap.height / 4))
        var written = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                var next: UnsafeMutablePointer<UInt8>? = buffer.baseAddress! + written
                var available = buffer.count - written
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                written = buffer.count - available
                return status
            }
            if status == JXL_ENC_SUCCESS { break }
            guard status == JXL_ENC_NEED_MORE_OUTPUT else { try check(status, encoder, stage: "encoding") ; break }
            output += [UInt8](repeating: 0, count: output.count)
        }
        guard written > 0 else { throw .encodingFailed(.jxl, detail: "libjxl wrote nothing") }
        return Array(output[..<written])
    }

    private static func check(_ status: JxlEncoderStatus, _ encoder: OpaquePointer, stage: String) throws(ImageError) {
        guard status != JXL_ENC_SUCCESS else { return }
        throw .encodingFailed(.jxl, detail: "libjxl: error \(JxlEncoderGetError(encoder).rawValue) (while \(stage))")
    }
}
#endif
