#if JPEGXL
import CJxl
import Imagery

/// JPEG XL through libjxl (the `JPEGXL` package trait): the first frame, with alpha, in sRGB
/// where the file lets the decoder choose (XYB) and with its ICC profile otherwise.
///
/// libjxl applies the codestream's orientation as it decodes, as browsers do, so the result is
/// upright and an EXIF tag in the container is not applied a second time. libjxl 0.7 has no
/// reduced decode, so a draft decodes at full size and is box-reduced before it is returned. The size in the header is checked against
/// the pixel limit before the output buffer exists.
struct JPEGXLDecoder: FormatDecoding {
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        guard let decoder = JxlDecoderCreate(nil) else { throw .corrupt(.jxl, detail: "libjxl could not allocate a decoder") }
        defer { JxlDecoderDestroy(decoder) }
        let events = Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue | JXL_DEC_FULL_IMAGE.rawValue)
        guard JxlDecoderSubscribeEvents(decoder, events) == JXL_DEC_SUCCESS,
              JxlDecoderSetInput(decoder, bytes.baseAddress, bytes.count) == JXL_DEC_SUCCESS
        else { throw .corrupt(.jxl, detail: "libjxl refused the input") }
        JxlDecoderCloseInput(decoder)

        var info = JxlBasicInfo()
        var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var pixels: [UInt8] = []
        var outWidth = 0, outHeight = 0
        var profile: [UInt8]?
        // Each event comes once for a still image; the bound only guards against a decoder
        // that repeats itself.
        for _ in 0..<64 {
            let status = JxlDecoderProcessInput(decoder)
            switch status {
            case JXL_DEC_BASIC_INFO:
                guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else { throw .corrupt(.jxl, detail: "unreadable basic info") }
                try options.checkPixelLimit(width: Int(info.xsize), height: Int(info.ysize))
                let swaps = info.orientation.rawValue >= 5
                outWidth = Int(swaps ? info.ysize : info.xsize)
                outHeight = Int(swaps ? info.xsize : info.ysize)
            case JXL_DEC_COLOR_ENCODING:
                // For XYB files the decoder may choose the output space; choose sRGB, so no
                // conversion follows. Other files keep their own, described by the profile.
                var srgb = JxlColorEncoding()
                JxlColorEncodingSetToSRGB(&srgb, info.num_color_channels == 1 ? 1 : 0)
                _ = JxlDecoderSetPreferredColorProfile(decoder, &srgb)
                profile = Self.iccProfile(decoder)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                var size = 0
                guard JxlDecoderImageOutBufferSize(decoder, &format, &size) == JXL_DEC_SUCCESS,
                      size == outWidth * outHeight * 4
                else { throw .corrupt(.jxl, detail: "the output buffer libjxl asks for does not match the header") }
                pixels = [UInt8](repeating: 0, count: size)
                let set = pixels.withUnsafeMutableBytes { JxlDecoderSetImageOutBuffer(decoder, &format, $0.baseAddress, size) }
                guard set == JXL_DEC_SUCCESS else { throw .corrupt(.jxl, detail: "libjxl refused the output buffer") }
            case JXL_DEC_FULL_IMAGE:
                let hasAlpha = info.alpha_bits > 0
                // libjxl 0.7 decodes whole; a box stage takes a draft down before the Lanczos.
                let scale = options.draftScale(storedSize: PixelSize(width: outWidth, height: outHeight), orientation: .up)
                let factor = DecodingOptions.boxFactor(forScale: scale)
                let (reduced, size) = factor == 1 ? (pixels, PixelSize(width: outWidth, height: outHeight)) : pixels.withUnsafeBufferPointer { buffer in
                    RowCollector.collect(
                        plane: buffer.baseAddress!, stride: outWidth * 4, width: outWidth, height: outHeight, channels: 4,
                        factor: factor, hasAlpha: hasAlpha
                    )
                }
                let metadata = ImageMetadata(
                    format: .jxl, originalWidth: outWidth, originalHeight: outHeight, decodeScale: Double(size.width) / Double(outWidth)
                )
                let bitmap = Bitmap(
                    width: size.width, height: size.height, pixels: reduced,
                    alphaMode: hasAlpha ? (info.alpha_premultiplied != 0 ? .premultiplied : .straight) : .opaque,
                    metadata: metadata
                )
                return DecodedImage(bitmap: bitmap, iccProfile: profile)
            case JXL_DEC_NEED_MORE_INPUT:
                throw .truncated(.jxl, detail: "the file ends before the first frame does")
            case JXL_DEC_SUCCESS:
                throw .corrupt(.jxl, detail: "the file has no frame")
            default:
                throw .corrupt(.jxl, detail: "libjxl could not decode the file (status \(status.rawValue))")
            }
        }
        throw .corrupt(.jxl, detail: "libjxl did not finish the first frame")
    }

    /// The profile of the decoded pixels, or `nil` where it is sRGB (the common case) or absent.
    static func iccProfile(_ decoder: OpaquePointer) -> [UInt8]? {
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
              size > 0, size < 4 << 20
        else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        let status = profile.withUnsafeMutableBufferPointer {
            JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, $0.baseAddress, size)
        }
        return status == JXL_DEC_SUCCESS ? profile : nil
    }
}
#endif
