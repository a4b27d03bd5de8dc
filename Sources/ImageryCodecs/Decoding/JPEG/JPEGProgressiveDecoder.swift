import CImageryCodecs
import Imagery

/// Previews of a progressive JPEG while it downloads, through libjpeg-turbo's buffered-image
/// mode: bytes are consumed as they arrive (never waiting for more), and each preview draws the
/// last complete scan at the DCT scale the request's draft needs, then converts colour and
/// orientation as the final decode does. A baseline JPEG has one scan, so it is refused at its
/// header (``append(_:)`` throws and the pipeline stops feeding it); so is anything that is not
/// a JPEG.
///
/// The C decoder holds libjpeg's coefficient buffer (about 6 bytes a pixel) until the pipeline
/// closes the feed, which it does when the download ends, before the final decode.
final class JPEGProgressiveDecoder: ProgressiveDecoding {
    private let decoder: OpaquePointer
    private let options: DecodingOptions
    /// The first bytes, until there are enough to tell a JPEG.
    private var signature: [UInt8] = []
    private var header: Header?
    /// Scans shown by the last preview.
    private var scansShown = 0
    private var pixels: [UInt8] = []

    private struct Header {
        let width: Int
        let height: Int
        let orientation: ImageOrientation
        let icc: [UInt8]?
        let isCMYK: Bool
        let inverted: Bool
        let outputWidth: Int
        let outputHeight: Int
        let decodeScale: Double
    }

    /// A decoder for previews at `options`' draft, within its pixel limit and scan limit; `nil`
    /// when libjpeg cannot make one.
    init?(options: DecodingOptions) {
        let maxMemory = options.maximumPixelCount.multipliedReportingOverflow(by: 8)
        guard let decoder = img_jpeg_progressive_create(
            options.policy == .strict ? 1 : 0,
            Int32(clamping: options.maximumProgressiveScans),
            maxMemory.overflow ? Int.max : maxMemory.partialValue + (64 << 20),
            options.maximumPixelCount
        ) else { return nil }
        self.decoder = decoder
        self.options = options
    }

    deinit {
        img_jpeg_progressive_destroy(decoder)
    }

    func append(_ bytes: [UInt8]) throws(ImageError) {
        if signature.count < 2 {
            signature += bytes.prefix(2 - signature.count)
            if signature.count == 2, signature != [0xFF, 0xD8] { throw .unrecognizedFormat(signature: ImageError.signature(of: signature)) }
        }
        let status = bytes.withUnsafeBufferPointer { img_jpeg_progressive_feed(decoder, $0.baseAddress, $0.count) }
        try check(status, while: "reading the data")
        if header == nil, img_jpeg_progressive_state(decoder).header_ready != 0 { try start() }
    }

    func preview() throws(ImageError) -> Bitmap? {
        let state = img_jpeg_progressive_state(decoder)
        // Once the file is complete the final decode follows at once: no preview of it.
        guard let header, state.finished == 0, Int(state.completed_scans) > scansShown else { return nil }
        let stride = header.outputWidth * 4
        var scans: Int32 = 0
        let status = pixels.withUnsafeMutableBytes { buffer in
            img_jpeg_progressive_render(decoder, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), stride, buffer.count, &scans)
        }
        try check(status, while: "drawing a preview")
        scansShown = Int(scans)
        var rendered = pixels
        if header.isCMYK {
            rendered.withUnsafeMutableBufferPointer { buffer in
                JPEGDecoder.convertCMYK(buffer.baseAddress!, pixels: header.outputWidth * header.outputHeight, inverted: header.inverted)
            }
        }
        let metadata = ImageMetadata(
            format: .jpeg, originalWidth: header.width, originalHeight: header.height,
            sourceOrientation: header.orientation, decodeScale: header.decodeScale, warnings: []
        )
        let bitmap = Bitmap(
            width: header.outputWidth, height: header.outputHeight, pixels: rendered,
            alphaMode: .opaque, orientation: header.orientation, metadata: metadata
        )
        let converted = ImageDecoder.convertColor(DecodedImage(bitmap: bitmap, iccProfile: header.icc), enabled: options.convertsColor)
        return options.appliesOrientation ? converted.oriented() : converted
    }

    /// Reads the header's facts, checks the limit, and fixes the DCT scale for every preview.
    private func start() throws(ImageError) {
        var info = ImgJpegInfo()
        try check(img_jpeg_progressive_info(decoder, &info), while: "reading the header")
        let width = Int(info.width), height = Int(info.height)
        try options.checkPixelLimit(width: width, height: height)
        // A baseline file has one scan: no preview, and buffered-image mode would hold its
        // whole coefficient buffer and entropy-decode it for nothing.
        guard info.progressive != 0 else { throw .unsupportedFormat(.jpeg, reason: "no previews: not a progressive JPEG") }
        let orientation = options.appliedOrientation(exif: ExifReader.orientation(start: info.exif, count: info.exif_length))
        let icc = info.icc.map { Array(UnsafeBufferPointer(start: $0, count: info.icc_length)) }
        let eighths = JPEGDecoder.eighths(forScale: options.draftScale(storedSize: PixelSize(width: width, height: height), orientation: orientation))
        var outWidth: Int32 = 0, outHeight: Int32 = 0
        try check(img_jpeg_progressive_start(decoder, Int32(eighths), &outWidth, &outHeight), while: "starting")
        header = Header(
            width: width, height: height, orientation: orientation, icc: icc,
            isCMYK: info.color_space == IMG_JPEG_CMYK || info.color_space == IMG_JPEG_YCCK, inverted: info.adobe_marker != 0,
            outputWidth: Int(outWidth), outputHeight: Int(outHeight), decodeScale: Double(eighths) / 8
        )
        pixels = [UInt8](repeating: 0, count: Int(outWidth) * Int(outHeight) * 4)
    }

    private func check(_ status: ImgStatus, while stage: String) throws(ImageError) {
        guard status != IMG_OK else { return }
        let message = String(cString: img_jpeg_progressive_message(decoder))
        let detail = "\(message.isEmpty ? "libjpeg error" : message) (while \(stage), progressively)"
        switch status {
        case IMG_ERR_TRUNCATED: throw .truncated(.jpeg, detail: detail)
        case IMG_ERR_OUT_OF_MEMORY: throw .corrupt(.jpeg, detail: "a preview would need more memory than the pixel limit allows: \(detail)")
        default: throw .corrupt(.jpeg, detail: detail)
        }
    }
}

extension ImageDecoder {
    /// Previews of a progressive JPEG while it downloads, at the draft `resize` needs (see
    /// `ProgressiveDecoding`); other formats give none.
    public func progressiveDecoder(resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions) -> (any ProgressiveDecoding)? {
        var options = options
        options.draft = allowsUpscaling ? nil : resize.map { Thumbnailer.draft(for: $0, headroom: options.draftHeadroom) }
        return JPEGProgressiveDecoder(options: options)
    }
}
