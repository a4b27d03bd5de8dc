import Imagery

/// BMP out, in Swift: 24-bit rows for an opaque image, and for one with transparency 32-bit
/// rows with a BITMAPV4 header whose masks name the alpha channel, so that readers that honour
/// them (browsers, ImageMagick, this decoder) keep it.
enum BMPEncoder {
    static func encode(_ bitmap: Bitmap) throws(ImageError) -> [UInt8] {
        let image = bitmap.withStraightAlpha()
        let alpha = image.alphaMode != .opaque && image.hasTransparency
        let width = image.width, height = image.height
        let headerSize = alpha ? 108 : 40
        let rowBytes = alpha ? width * 4 : (width * 3 + 3) / 4 * 4
        let (dataSize, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        let offset = 14 + headerSize
        guard !overflow, dataSize + offset <= Int(UInt32.max) else {
            throw .encodingFailed(.bmp, detail: "\(width)x\(height) is too large for a BMP file")
        }
        var out = [UInt8]()
        out.reserveCapacity(offset + dataSize)
        out += Array("BM".utf8)
        out.append32(offset + dataSize)
        out.append32(0)
        out.append32(offset)
        out.append32(headerSize)
        out.append32(width)
        out.append32(height)   // positive: rows bottom-up, as every reader expects
        out.append16(1)
        out.append16(alpha ? 32 : 24)
        out.append32(alpha ? 3 : 0)   // BI_BITFIELDS for the masks below, BI_RGB otherwise
        out.append32(dataSize)
        out.append32(2835)   // 72 dpi, in pixels per metre
        out.append32(2835)
        out.append32(0)
        out.append32(0)
        if alpha {
            out.append32(0x00FF_0000)
            out.append32(0x0000_FF00)
            out.append32(0x0000_00FF)
            out.append32(0xFF00_0000)
            out += Array("BGRs".utf8)   // LCS_sRGB, stored little-endian as "sRGB"
            out += [UInt8](repeating: 0, count: 48)   // endpoints and gamma: unused for sRGB
        }
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in stride(from: height - 1, through: 0, by: -1) {
                let row = y * image.bytesPerRow
                for x in 0..<width {
                    let at = row + x * 4
                    out.append(pixels[at + 2])
                    out.append(pixels[at + 1])
                    out.append(pixels[at])
                    if alpha { out.append(pixels[at + 3]) }
                }
                if !alpha { out += [UInt8](repeating: 0, count: rowBytes - width * 3) }
            }
        }
        return out
    }
}

extension Array where Element == UInt8 {
    mutating func append16(_ value: Int) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func append32(_ value: Int) {
        append16(value & 0xFFFF)
        append16(value >> 16)
    }
}
