/// The stored pixel size an image's header declares, read without decoding: what the
/// pipeline's decoding-pixel budget charges a decode before it starts.
package enum ImageHeader {
    /// The declared width and height of a JPEG, PNG, GIF or WebP, or `nil` for another
    /// format or a header too short or damaged to read (whose decode then fails at once).
    package static func size(of bytes: [UInt8]) -> PixelSize? {
        guard let format = ImageFormat(sniffing: bytes) else { return nil }
        return size(of: bytes, format: format)
    }

    /// ``size(of:)`` for a caller that has already sniffed the format.
    package static func size(of bytes: [UInt8], format: ImageFormat) -> PixelSize? {
        let size: PixelSize? = switch format {
        case .jpeg: jpegSize(bytes)
        case .png: bytes.count >= 24 ? PixelSize(width: bigEndian(bytes, 16, 4), height: bigEndian(bytes, 20, 4)) : nil
        case .gif: bytes.count >= 10 ? PixelSize(width: littleEndian(bytes, 6, 2), height: littleEndian(bytes, 8, 2)) : nil
        case .webp: webpSize(bytes)
        default: nil
        }
        guard let size, size.width > 0, size.height > 0 else { return nil }
        return size
    }

    /// The first start-of-frame segment (any SOFn) gives the size; segments before it are
    /// skipped by their lengths, so a large EXIF block costs one jump.
    private static func jpegSize(_ bytes: [UInt8]) -> PixelSize? {
        var index = 2
        while index + 9 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            switch marker {
            case 0xFF:
                index += 1   // fill byte
            case 0x01, 0xD0...0xD8:
                index += 2   // standalone markers carry no length
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                return PixelSize(width: bigEndian(bytes, index + 7, 2), height: bigEndian(bytes, index + 5, 2))
            default:
                index += 2 + bigEndian(bytes, index + 2, 2)
            }
        }
        return nil
    }

    /// VP8X carries the canvas; a simple file's VP8L or VP8 bitstream header carries the frame.
    private static func webpSize(_ bytes: [UInt8]) -> PixelSize? {
        guard bytes.count >= 30 else { return nil }
        switch String(decoding: bytes[12..<16], as: UTF8.self) {
        case "VP8X":
            return PixelSize(width: littleEndian(bytes, 24, 3) + 1, height: littleEndian(bytes, 27, 3) + 1)
        case "VP8L":
            let bits = littleEndian(bytes, 21, 4)
            return PixelSize(width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1)
        case "VP8 ":
            return PixelSize(width: littleEndian(bytes, 26, 2) & 0x3FFF, height: littleEndian(bytes, 28, 2) & 0x3FFF)
        default:
            return nil
        }
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        guard offset + count <= bytes.count else { return 0 }
        return bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        guard offset + count <= bytes.count else { return 0 }
        return bytes[offset..<offset + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
