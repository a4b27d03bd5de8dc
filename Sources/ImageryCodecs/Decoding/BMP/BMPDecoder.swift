import Imagery

/// BMP in Swift, with no system library: 1-, 4-, 8-, 16-, 24- and 32-bit images, RLE4 and
/// RLE8, bit fields (with alpha), bottom-up and top-down, the core and every info header. The
/// size is checked against the pixel limit from the header, before anything is allocated, and
/// a header that claims more rows than the data holds is a truncation, not a crash.
struct BMPDecoder: FormatDecoding {
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        guard bytes.count >= 26 else { throw .truncated(.bmp, detail: "the file header is cut off") }
        let pixelOffset = Int(bytes[10]) | Int(bytes[11]) << 8 | Int(bytes[12]) << 16 | Int(bytes[13]) << 24
        let header = try DIBHeader(bytes, at: 14, format: .bmp)
        // Some writers leave the offset at 0: the pixels then follow the header and palette.
        let start = pixelOffset >= header.end && pixelOffset < bytes.count ? pixelOffset : header.end
        let decoded = try DIBPixels(header, bytes, at: start, options: options, format: .bmp)
        let metadata = ImageMetadata(format: .bmp, originalWidth: header.width, originalHeight: header.height, warnings: decoded.warnings)
        let bitmap = Bitmap(
            width: header.width, height: header.height, pixels: decoded.pixels, alphaMode: decoded.hasAlpha ? .straight : .opaque, metadata: metadata
        )
        return DecodedImage(bitmap: bitmap, iccProfile: nil)
    }
}
