import Imagery

/// ICO and CUR in Swift: the largest image of the directory (by pixels, then by colour depth),
/// PNG-encoded or a device-independent bitmap with its AND mask applied as transparency.
struct ICODecoder: FormatDecoding {
    /// One entry of an icon directory.
    struct Entry {
        let width: Int
        let height: Int
        let bitCount: Int
        let size: Int
        let offset: Int
    }

    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        let entries = try Self.entries(bytes)
        guard let best = entries.max(by: { ($0.width * $0.height, $0.bitCount) < ($1.width * $1.height, $1.bitCount) }) else {
            throw .corrupt(.ico, detail: "an icon with no images")
        }
        guard best.offset >= 0, best.size > 0, best.offset < bytes.count else { throw .truncated(.ico, detail: "the image data is outside the file") }
        let end = min(bytes.count, best.offset + best.size)
        let image = UnsafeBufferPointer(rebasing: bytes[best.offset..<end])
        if ImageFormat(sniffing: image.prefix(8)) == .png {
            var decoded = try PNGDecoder().decode(image, options: options)
            decoded.bitmap.metadata.format = .ico
            return decoded
        }
        return DecodedImage(bitmap: try Self.bitmap(image, options: options, warnings: end < best.offset + best.size ? ["the image data is cut off"] : []), iccProfile: nil)
    }

    /// The directory's entries, checked for plausibility (an ICO has no magic beyond six bytes).
    static func entries(_ bytes: UnsafeBufferPointer<UInt8>) throws(ImageError) -> [Entry] {
        guard bytes.count >= 6 else { throw .truncated(.ico, detail: "the icon header is cut off") }
        let count = Int(bytes[4]) | Int(bytes[5]) << 8
        guard count > 0 else { throw .corrupt(.ico, detail: "an icon with no images") }
        guard 6 + 16 * count <= bytes.count else { throw .truncated(.ico, detail: "the icon directory is cut off") }
        return (0..<count).map { index in
            let at = 6 + 16 * index
            func u16(_ offset: Int) -> Int { Int(bytes[at + offset]) | Int(bytes[at + offset + 1]) << 8 }
            func u32(_ offset: Int) -> Int { u16(offset) | u16(offset + 2) << 16 }
            return Entry(
                width: bytes[at] == 0 ? 256 : Int(bytes[at]), height: bytes[at + 1] == 0 ? 256 : Int(bytes[at + 1]),
                bitCount: u16(6), size: u32(8), offset: u32(12)
            )
        }
    }

    /// A bitmap entry: the colour image, then a 1-bit AND mask of the same size, whose set bits
    /// are transparent (where the colour image carries no alpha of its own).
    private static func bitmap(_ image: UnsafeBufferPointer<UInt8>, options: DecodingOptions, warnings: [String]) throws(ImageError) -> Bitmap {
        let header = try DIBHeader(image, at: 0, format: .ico, halvesHeight: true)
        var decoded = try DIBPixels(header, image, at: header.end, options: options, format: .ico)
        let maskStart = header.end + header.rowBytes * header.height
        let maskRowBytes = ((header.width + 31) / 32) * 4
        if !decoded.hasAlpha, maskStart + maskRowBytes * header.height <= image.count {
            for stored in 0..<header.height {
                let y = header.isTopDown ? stored : header.height - 1 - stored
                for x in 0..<header.width where image[maskStart + stored * maskRowBytes + x / 8] & (0x80 >> UInt8(x % 8)) != 0 {
                    decoded.pixels[(y * header.width + x) * 4 + 3] = 0
                    decoded.hasAlpha = true
                }
            }
        }
        let metadata = ImageMetadata(format: .ico, originalWidth: header.width, originalHeight: header.height, warnings: decoded.warnings + warnings)
        return Bitmap(width: header.width, height: header.height, pixels: decoded.pixels, alphaMode: decoded.hasAlpha ? .straight : .opaque, metadata: metadata)
    }
}
