import CImageryCodecs
import Imagery

/// PNG through libpng: every colour type and bit depth, palette with tRNS, 16-bit (scaled
/// to 8), Adam7. Non-interlaced images stream row by row through the box reducer, so a
/// draft decode of a large PNG never holds the full image.
///
/// Gamma (`gAMA`) and chromaticity (`cHRM`) chunks are ignored, as browsers mostly do;
/// `iCCP` profiles are honoured by ``ImageDecoder``.
struct PNGDecoder: FormatDecoding {
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        guard let decoder = img_png_decoder_create(bytes.baseAddress, bytes.count) else {
            throw .corrupt(.png, detail: "could not create a libpng decoder")
        }
        defer { img_png_decoder_destroy(decoder) }

        var info = ImgPngInfo()
        try check(img_png_read_info(decoder, &info), decoder, stage: "reading the header")
        let width = Int(info.width), height = Int(info.height)
        try options.checkPixelLimit(width: width, height: height)
        let exif = ExifReader.orientation(start: info.exif, count: Int(info.exif_length))
        let orientation = options.appliedOrientation(exif: exif)
        let icc = info.icc.map { Array(UnsafeBufferPointer(start: $0, count: Int(info.icc_length))) }
        try check(img_png_start(decoder), decoder, stage: "setting up conversion")

        let hasAlpha = info.has_alpha != 0
        let scale = options.draftScale(storedSize: PixelSize(width: width, height: height), orientation: orientation)
        let factor = DecodingOptions.boxFactor(forScale: scale)
        var collector = RowCollector(width: width, height: height, factor: factor, hasAlpha: hasAlpha)
        var warnings: [String] = []
        var failure: ImageError?

        if info.interlaced != 0 {
            // Adam7 fills the image in seven passes, so it must be whole before any row is final.
            var scratch: [UInt8] = []
            _ = collector.fillRows(maxRows: height, scratch: &scratch) { (rows: UnsafeMutablePointer<UInt8>, count: Int) -> Int in
                let status = img_png_read_image(decoder, rows, width * 4)
                if status != IMG_OK { failure = error(status, decoder, stage: "decoding interlaced data") }
                return status == IMG_OK ? count : 0
            }
        } else {
            var scratch: [UInt8] = []
            while collector.rowsReceived < height && failure == nil {
                let row = collector.rowsReceived
                _ = collector.fillRows(maxRows: 16, scratch: &scratch) { (rows: UnsafeMutablePointer<UInt8>, count: Int) -> Int in
                    // Row by row, so that a failure knows exactly how much was decoded.
                    for index in 0..<count {
                        let status = img_png_read_rows(decoder, rows + index * width * 4, width * 4, 1)
                        if status != IMG_OK {
                            failure = error(status, decoder, stage: "decoding row \(row + index)")
                            return index
                        }
                    }
                    return count
                }
            }
        }
        if let failure {
            guard options.policy == .lenient, collector.rowsReceived > 0, info.interlaced == 0 else { throw failure }
            warnings.append("\(failure) (rows \(collector.rowsReceived) to \(height - 1) filled with grey)")
            collector.padRemainingRows()
        } else {
            let status = img_png_finish(decoder)
            if status != IMG_OK {
                let trailing = error(status, decoder, stage: "reading the data after the image")
                if options.policy == .strict { throw trailing }
                warnings.append(trailing.description)
            }
        }

        let size = collector.outputSize
        let metadata = ImageMetadata(
            format: .png, originalWidth: width, originalHeight: height, sourceOrientation: exif,
            decodeScale: 1 / Double(factor), warnings: warnings
        )
        let alphaMode: AlphaMode = !hasAlpha ? .opaque : (factor > 1 ? .premultiplied : .straight)
        let bitmap = Bitmap(
            width: size.width, height: size.height, pixels: collector.finish(),
            alphaMode: alphaMode, orientation: orientation, metadata: metadata
        )
        return DecodedImage(bitmap: bitmap, iccProfile: icc)
    }

    private func check(_ status: ImgStatus, _ decoder: OpaquePointer, stage: String) throws(ImageError) {
        if status != IMG_OK { throw error(status, decoder, stage: stage) }
    }

    private func error(_ status: ImgStatus, _ decoder: OpaquePointer, stage: String) -> ImageError {
        let message = String(cString: img_png_message(decoder))
        let detail = "\(message.isEmpty ? "libpng error" : message) (while \(stage))"
        return status == IMG_ERR_TRUNCATED ? .truncated(.png, detail: detail) : .corrupt(.png, detail: detail)
    }
}
