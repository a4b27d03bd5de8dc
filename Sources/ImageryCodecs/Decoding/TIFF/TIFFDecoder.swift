#if TIFF
import CImageryTIFF
import Imagery

/// TIFF through libtiff 4.5 (the `TIFF` package trait): the first page, through libtiff's RGBA
/// reader, which converts every common layout: no compression, LZW, Deflate, PackBits, JPEG,
/// CCITT G3 and G4; 1- to 16-bit samples (16 reduced to 8); RGB, grey (either polarity),
/// palette, CMYK (the naive separation), YCbCr; alpha associated or not; strips or tiles,
/// contiguous or planar. The orientation tag and the ICC profile are returned as a JPEG's EXIF
/// orientation and ICC are: applied after any resize.
///
/// Limits come before pixels: the pixel limit is checked on the first directory's size, the
/// pages after it are never read, and libtiff refuses any single allocation over a per-handle
/// limit (a strip or tile that claims more than a decode could need). Rows are read a strip or
/// a row of tiles at a time into the box reducer, so a draft holds the draft.
struct TIFFDecoder: FormatDecoding {
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        guard let decoder = img_tiff_decoder_create(bytes.baseAddress, bytes.count, Self.allocationLimit(for: options)) else {
            throw .corrupt(.tiff, detail: "could not create a libtiff decoder")
        }
        defer { img_tiff_decoder_destroy(decoder) }
        var info = ImgTiffInfo()
        try check(img_tiff_read_header(decoder, &info), decoder, stage: "reading the first directory")
        let width = Int(info.width), height = Int(info.height)
        try options.checkPixelLimit(width: width, height: height)
        try check(img_tiff_start(decoder, options.policy == .strict ? 1 : 0), decoder, stage: "preparing the RGBA reader")

        let orientation = ImageOrientation(exifValue: Int(info.orientation))
        let alphaMode: AlphaMode = switch img_tiff_alpha_mode(decoder) {
        case 1: .premultiplied
        case 2: .straight
        default: .opaque
        }
        let scale = options.draftScale(storedSize: PixelSize(width: width, height: height), orientation: orientation)
        let factor = DecodingOptions.boxFactor(forScale: scale)
        // Premultiplied rows box-average as they are; straight ones are premultiplied by the reducer.
        var collector = RowCollector(width: width, height: height, factor: factor, hasAlpha: alphaMode == .straight)
        let band = Self.band(rowsPerBlock: Int(info.rows_per_block), width: width, height: height, tiled: info.tiled != 0)
        var scratch: [UInt8] = []
        var failure: ImageError?
        while collector.rowsReceived < height, failure == nil {
            let row = collector.rowsReceived
            _ = collector.fillRows(maxRows: band, scratch: &scratch) { (rows: UnsafeMutablePointer<UInt8>, count: Int) -> Int in
                let status = img_tiff_read_rows(decoder, rows, UInt32(row), UInt32(count))
                if status != IMG_TIFF_OK {
                    failure = error(status, decoder, stage: "decoding rows \(row) to \(row + count - 1)")
                    return 0
                }
                return count
            }
        }
        if let failure { throw failure }

        var warnings: [String] = []
        if img_tiff_warning_count(decoder) > 0, options.policy == .lenient {
            warnings.append("\(img_tiff_warning_count(decoder)) libtiff warning(s), first: \(String(cString: img_tiff_message(decoder)))")
        }
        let size = collector.outputSize
        let metadata = ImageMetadata(
            format: .tiff, originalWidth: width, originalHeight: height, sourceOrientation: orientation,
            decodeScale: 1 / Double(factor), warnings: warnings
        )
        let bitmap = Bitmap(
            width: size.width, height: size.height, pixels: collector.finish(),
            alphaMode: alphaMode == .straight && factor > 1 ? .premultiplied : alphaMode, orientation: orientation, metadata: metadata
        )
        let icc = info.icc.map { Array(UnsafeBufferPointer(start: $0, count: Int(info.icc_length))) }
        return DecodedImage(bitmap: bitmap, iccProfile: icc)
    }

    /// The largest single allocation libtiff may make for one file: a strip or tile buffer of
    /// the largest image the pixel limit admits at 16 bits and 4 samples, and never over
    /// 256 MiB, so that a header which lies about its strips fails at once.
    static func allocationLimit(for options: DecodingOptions) -> Int {
        let (bytes, overflow) = options.maximumPixelCount.multipliedReportingOverflow(by: 8)
        return overflow ? 256 << 20 : min(256 << 20, max(bytes, 16 << 20))
    }

    /// Rows per read: whole strips (or rows of tiles), since libtiff decodes a strip from its
    /// start for every read that touches it, and about 128 rows at least, since each read has
    /// a cost of its own.
    static func band(rowsPerBlock: Int, width: Int, height: Int, tiled: Bool) -> Int {
        let block = max(1, min(rowsPerBlock, height))
        guard !tiled, block < 128 else { return block }
        return min(height, block * max(1, 128 / block))
    }

    private func check(_ status: ImgTiffStatus, _ decoder: OpaquePointer, stage: String) throws(ImageError) {
        if status != IMG_TIFF_OK { throw error(status, decoder, stage: stage) }
    }

    private func error(_ status: ImgTiffStatus, _ decoder: OpaquePointer, stage: String) -> ImageError {
        let message = String(cString: img_tiff_message(decoder))
        let detail = "\(message.isEmpty ? "libtiff error" : message) (while \(stage))"
        switch status {
        case IMG_TIFF_TRUNCATED: return .truncated(.tiff, detail: detail)
        case IMG_TIFF_UNSUPPORTED: return .unsupportedFormat(.tiff, reason: "libtiff: \(detail)")
        case IMG_TIFF_OUT_OF_MEMORY: return .corrupt(.tiff, detail: "decoding would need more memory than allowed: \(detail)")
        default: return .corrupt(.tiff, detail: detail)
        }
    }
}
#endif
