/// The stored pixel size an image's header declares, read without decoding: what the
/// pipeline's decoding-pixel budget charges a decode before it starts.
package enum ImageHeader {
    /// The declared width and height of a JPEG, PNG, GIF, WebP, HEIC, AVIF, JPEG XL, BMP, ICO
    /// (its largest image) or TIFF (its first page), the intrinsic size of an SVG whose root states one in pixels, or `nil`
    /// for another format or a header too short or damaged to read (whose decode then fails at
    /// once, or is refused by its decoder's own size check).
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
        case .heic, .avif: largestSpatialExtent(bytes)
        case .jxl: jpegXLSize(bytes)
        case .bmp: bmpSize(bytes)
        case .ico: icoSize(bytes)
        case .tiff: tiffSize(bytes)
        case .svg: svgSize(bytes)
        }
        guard let size, size.width > 0, size.height > 0 else { return nil }
        return size
    }

    /// The info header's width and height (the core header's are 16-bit); the height's sign
    /// says which way the rows run.
    private static func bmpSize(_ bytes: [UInt8]) -> PixelSize? {
        guard bytes.count >= 26 else { return nil }
        if littleEndian(bytes, 14, 4) == 12 { return PixelSize(width: littleEndian(bytes, 18, 2), height: littleEndian(bytes, 20, 2)) }
        let height = Int32(truncatingIfNeeded: littleEndian(bytes, 22, 4))
        return PixelSize(width: Int(Int32(truncatingIfNeeded: littleEndian(bytes, 18, 4))), height: height == .min ? 0 : Int(height.magnitude))
    }

    /// The largest entry of the icon directory (0 in a directory entry means 256).
    private static func icoSize(_ bytes: [UInt8]) -> PixelSize? {
        guard bytes.count >= 6 else { return nil }
        let count = littleEndian(bytes, 4, 2)
        guard bytes.count >= 6 + 16 * count else { return nil }
        return (0..<count).map { index -> PixelSize in
            let at = 6 + 16 * index
            return PixelSize(width: bytes[at] == 0 ? 256 : Int(bytes[at]), height: bytes[at + 1] == 0 ? 256 : Int(bytes[at + 1]))
        }.max { $0.width * $0.height < $1.width * $1.height }
    }

    /// The first start-of-frame segment (any SOFn) gives the size; segments before it are
    /// skipped by their lengths, so a large EXIF block costs one jump.
    private static func jpegSize(_ bytes: [UInt8]) -> PixelSize? {
        firstJPEGSegment(in: bytes) { marker, index in
            guard (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker), index + 9 < bytes.count else { return nil }
            return PixelSize(width: bigEndian(bytes, index + 7, 2), height: bigEndian(bytes, index + 5, 2))
        }
    }

    /// Whether the JPEG that `bytes` begin is progressive (its frame header is SOF2, 6, 10 or
    /// 14); `nil` until the frame header has arrived, and `false` for anything that is not a
    /// JPEG. What an incremental decoder asks before it makes previews.
    package static func isProgressiveJPEG(_ bytes: [UInt8]) -> Bool? {
        guard bytes.count >= 2 else { return nil }
        guard bytes[0] == 0xFF, bytes[1] == 0xD8 else { return false }
        return firstJPEGSegment(in: bytes) { marker, _ in
            guard (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) else { return nil }
            return [0xC2, 0xC6, 0xCA, 0xCE].contains(marker)
        }
    }

    /// Walks a JPEG's marker segments up to its image data, handing `visit` each segment's
    /// marker and the index of its `FF`, until it returns a value. Fill bytes and standalone
    /// markers are stepped over; a byte that is not a marker ends the walk.
    static func firstJPEGSegment<Found>(in bytes: [UInt8], _ visit: (_ marker: UInt8, _ index: Int) -> Found?) -> Found? {
        var index = 2
        while index + 3 < bytes.count {
            guard bytes[index] == 0xFF else { return nil }
            let marker = bytes[index + 1]
            switch marker {
            case 0xFF:
                index += 1   // fill byte
            case 0x01, 0xD0...0xD8:
                index += 2   // standalone markers carry no length
            case 0xD9, 0xDA:
                return nil   // end of image, or start of scan: no header segment follows
            default:
                if let found = visit(marker, index) { return found }
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

    /// HEIF and AVIF state each item's size in an `ispe` box inside `meta`, near the start. A
    /// grid has one for the grid and one per tile: the largest is the image (or more, which
    /// errs on the safe side).
    private static func largestSpatialExtent(_ bytes: [UInt8]) -> PixelSize? {
        let tag: [UInt8] = [0x69, 0x73, 0x70, 0x65]   // "ispe"
        var best: PixelSize?
        var index = 4
        let end = min(bytes.count, 1 << 20) - 12
        while index < end {
            if bytes[index] == tag[0], bytes[index + 1] == tag[1], bytes[index + 2] == tag[2], bytes[index + 3] == tag[3] {
                let size = PixelSize(width: bigEndian(bytes, index + 8, 4), height: bigEndian(bytes, index + 12, 4))
                if size.width.multipliedReportingOverflow(by: size.height).partialValue > (best.map { $0.width * $0.height } ?? 0) {
                    best = size
                }
                index += 16
            } else {
                index += 1
            }
        }
        return best
    }

    /// JPEG XL's SizeHeader, the first field of the codestream (bare, or in a `jxlc` or the first
    /// `jxlp` box of the container): bit-packed, least significant bit first.
    private static func jpegXLSize(_ bytes: [UInt8]) -> PixelSize? {
        var start = 0
        if bytes.count > 12, bytes[0] == 0 {
            // ISO boxes: size (4), type (4); jxlp has a 4-byte sequence number before its data.
            var index = 0
            while index + 8 <= bytes.count, start == 0 {
                let length = bigEndian(bytes, index, 4)
                let type = String(decoding: bytes[index + 4..<index + 8], as: UTF8.self)
                if type == "jxlc" { start = index + 8 } else if type == "jxlp" { start = index + 12 }
                guard length >= 8 else { return nil }
                index += length
            }
        }
        guard start + 2 < bytes.count, bytes[start] == 0xFF, bytes[start + 1] == 0x0A else { return nil }
        var reader = BitReader(bytes: bytes, bit: (start + 2) * 8)
        func dimension(small: Bool) -> Int? {
            if small { return reader.read(5).map { ($0 + 1) * 8 } }
            guard let selector = reader.read(2) else { return nil }
            return reader.read([9, 13, 18, 30][selector]).map { $0 + 1 }
        }
        guard let small = reader.read(1).map({ $0 == 1 }), let height = dimension(small: small), let ratio = reader.read(3) else { return nil }
        let ratios = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)]
        let width = ratio == 0 ? dimension(small: small) : height * ratios[ratio - 1].0 / ratios[ratio - 1].1
        return width.map { PixelSize(width: $0, height: height) }
    }

    private struct BitReader {
        let bytes: [UInt8]
        var bit: Int

        mutating func read(_ count: Int) -> Int? {
            guard bit + count <= bytes.count * 8 else { return nil }
            var value = 0
            for shift in 0..<count {
                value |= Int(bytes[(bit + shift) / 8] >> ((bit + shift) % 8) & 1) << shift
            }
            bit += count
            return value
        }
    }

    static func bigEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        guard offset + count <= bytes.count else { return 0 }
        return bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) }
    }

    static func littleEndian(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> Int {
        guard offset + count <= bytes.count else { return 0 }
        return bytes[offset..<offset + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
