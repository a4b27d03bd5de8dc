import Imagery

/// ICO out: one PNG-encoded image in an icon directory, which every reader since Windows Vista
/// takes. An icon holds at most 256 × 256, so a larger image is scaled down to fit (Lanczos,
/// keeping its aspect ratio) before it is written.
enum ICOEncoder {
    /// The largest side an icon entry can state.
    static let maximumSide = 256

    static func encode(_ bitmap: Bitmap, png: (Bitmap) throws(ImageError) -> [UInt8]) throws(ImageError) -> [UInt8] {
        var image = bitmap
        if max(image.width, image.height) > maximumSide {
            image = try image.resized(.fit(width: maximumSide, height: maximumSide))
        }
        let data = try png(image)
        var out = [UInt8]()
        out.reserveCapacity(22 + data.count)
        out.append16(0)
        out.append16(1)   // an icon, not a cursor
        out.append16(1)   // one image
        out.append(UInt8(image.width == 256 ? 0 : image.width))
        out.append(UInt8(image.height == 256 ? 0 : image.height))
        out.append(0)     // no palette
        out.append(0)
        out.append16(1)   // planes
        out.append16(32)  // bits per pixel
        out.append32(data.count)
        out.append32(22)  // the image follows the one-entry directory
        out += data
        return out
    }
}
