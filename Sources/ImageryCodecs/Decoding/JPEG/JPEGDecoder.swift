import CImageryCodecs
import Imagery

/// JPEG through libjpeg-turbo: DCT-domain scaling to the smallest size at least the draft,
/// grayscale, RGB, YCbCr, CMYK and YCCK (to RGB), progressive files, EXIF orientation and ICC.
package struct JPEGDecoder: FormatDecoding {
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        let maxMemory = options.maximumPixelCount.multipliedReportingOverflow(by: 8)
        guard let decoder = img_jpeg_decoder_create(
            options.policy == .strict ? 1 : 0,
            Int32(clamping: options.maximumProgressiveScans),
            maxMemory.overflow ? Int.max : maxMemory.partialValue + (64 << 20)
        ) else {
            throw .corrupt(.jpeg, detail: "could not create a libjpeg decoder")
        }
        defer { img_jpeg_decoder_destroy(decoder) }

        var info = ImgJpegInfo()
        try check(img_jpeg_read_header(decoder, bytes.baseAddress, bytes.count, &info), decoder, stage: "reading the header")
        let width = Int(info.width), height = Int(info.height)
        try options.checkPixelLimit(width: width, height: height)

        let exif = ExifReader.orientation(start: info.exif, count: info.exif_length)
        let orientation = options.appliedOrientation(exif: exif)
        let icc = info.icc.map { Array(UnsafeBufferPointer(start: $0, count: info.icc_length)) }

        // DCT scaling: the smallest k/8 that still covers the draft; a box stage takes any remaining excess.
        let scale = options.draftScale(storedSize: PixelSize(width: width, height: height), orientation: orientation)
        let eighths = Self.eighths(forScale: scale)
        var outWidth: Int32 = 0, outHeight: Int32 = 0
        try check(img_jpeg_start(decoder, Int32(eighths), 0, &outWidth, &outHeight), decoder, stage: "starting decompression")
        let scaledWidth = Int(outWidth), scaledHeight = Int(outHeight)
        let dctScale = Double(eighths) / 8
        let factor = DecodingOptions.boxFactor(forScale: scale / dctScale)

        let isCMYK = info.color_space == IMG_JPEG_CMYK || info.color_space == IMG_JPEG_YCCK
        let inverted = info.adobe_marker != 0
        var collector = RowCollector(width: scaledWidth, height: scaledHeight, factor: factor, hasAlpha: false)
        var scratch: [UInt8] = []
        var failure: ImageError?
        while collector.rowsReceived < scaledHeight {
            let row = collector.rowsReceived
            let got = collector.fillRows(maxRows: 32, scratch: &scratch) { (rows: UnsafeMutablePointer<UInt8>, count: Int) -> Int in
                var read: Int32 = 0
                let status = img_jpeg_read_rows(decoder, rows, scaledWidth * 4, Int32(count), &read)
                if status != IMG_OK {
                    failure = error(status, decoder, stage: "decoding row \(row)")
                    return 0
                }
                if isCMYK { Self.convertCMYK(rows, pixels: Int(read) * scaledWidth, inverted: inverted) }
                return Int(read)
            }
            if let failure { throw failure }
            if got == 0 { throw .corrupt(.jpeg, detail: "libjpeg stopped at row \(row) of \(scaledHeight)") }
        }
        try check(img_jpeg_finish(decoder), decoder, stage: "finishing")

        var warnings: [String] = []
        if img_jpeg_warning_count(decoder) > 0 {
            warnings.append("\(img_jpeg_warning_count(decoder)) libjpeg warning(s), first: \(String(cString: img_jpeg_message(decoder)))")
        }
        let size = collector.outputSize
        let metadata = ImageMetadata(
            format: .jpeg, originalWidth: width, originalHeight: height, sourceOrientation: exif,
            decodeScale: dctScale / Double(factor), warnings: warnings
        )
        let bitmap = Bitmap(
            width: size.width, height: size.height, pixels: collector.finish(),
            alphaMode: .opaque, orientation: orientation, metadata: metadata
        )
        return DecodedImage(bitmap: bitmap, iccProfile: icc)
    }

    /// The smallest power-of-two libjpeg scale, in eighths, that still covers `scale`.
    /// libjpeg-turbo has SIMD IDCTs for 1/8, 2/8, 4/8 and 8/8 only; the odd sizes run plain C
    /// and measured both slower and lower in PSNR.
    package static func eighths(forScale scale: Double) -> Int {
        [1, 2, 4, 8].first { Double($0) / 8 >= scale - 1e-9 } ?? 8
    }

    /// Naive CMYK → RGB, the inverse of how most tools (ImageMagick, Photoshop without a
    /// CMYK profile) separate RGB. Adobe-marked files store the samples inverted.
    static func convertCMYK(_ pixels: UnsafeMutablePointer<UInt8>, pixels count: Int, inverted: Bool) {
        for index in 0..<count {
            let p = pixels + index * 4
            var c = UInt32(p[0]), m = UInt32(p[1]), y = UInt32(p[2]), k = UInt32(p[3])
            if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
            p[0] = UInt8((c * k + 127) / 255)
            p[1] = UInt8((m * k + 127) / 255)
            p[2] = UInt8((y * k + 127) / 255)
            p[3] = 255
        }
    }

    private func check(_ status: ImgStatus, _ decoder: OpaquePointer, stage: String) throws(ImageError) {
        if status != IMG_OK { throw error(status, decoder, stage: stage) }
    }

    private func error(_ status: ImgStatus, _ decoder: OpaquePointer, stage: String) -> ImageError {
        let message = String(cString: img_jpeg_message(decoder))
        let detail = "\(message.isEmpty ? "libjpeg error" : message) (while \(stage))"
        switch status {
        case IMG_ERR_TRUNCATED: return .truncated(.jpeg, detail: detail)
        case IMG_ERR_TOO_MANY_SCANS: return .corrupt(.jpeg, detail: detail)
        case IMG_ERR_OUT_OF_MEMORY: return .corrupt(.jpeg, detail: "decoding would need more memory than the pixel limit allows: \(detail)")
        default: return .corrupt(.jpeg, detail: detail)
        }
    }
}
