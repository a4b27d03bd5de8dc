import Imagery

/// A device-independent bitmap's header, as BMP files and ICO entries carry it: the core
/// header (12 bytes), or the info header (40 bytes) and its longer versions (52, 56, 108, 124),
/// with the bit-field masks and the palette that follow it. Every offset is checked; nothing
/// is allocated here.
struct DIBHeader {
    enum Compression: Equatable {
        case none, rle8, rle4, bitFields
    }

    /// A channel's bits within a 16- or 32-bit pixel.
    struct Mask {
        let mask: UInt32
        let shift: UInt32
        let bits: UInt32

        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            bits = UInt32((mask >> shift).nonzeroBitCount)
        }

        /// The channel of `pixel`, scaled to 8 bits (a full channel of fewer bits is 255).
        /// A mask whose bits are not contiguous, which a hostile file may give, reads as
        /// garbage but never traps.
        @inline(__always)
        func value(of pixel: UInt32) -> UInt8 {
            guard bits > 0 else { return 0 }
            let raw = (pixel & mask) >> shift
            if bits >= 8 { return UInt8(truncatingIfNeeded: raw >> (bits - 8)) }
            let maximum = (UInt32(1) << bits) - 1
            return UInt8((min(raw, maximum) * 255 + maximum / 2) / maximum)
        }
    }

    let width: Int
    /// Rows, positive; ``isTopDown`` says which way they are stored.
    let height: Int
    let isTopDown: Bool
    let bitsPerPixel: Int
    let compression: Compression
    /// BGR entries for 1-, 4- and 8-bit images.
    let palette: [RGBA]
    let red: Mask, green: Mask, blue: Mask, alpha: Mask
    /// Whether the header names an alpha channel (bit fields with an alpha mask).
    let hasAlphaMask: Bool
    /// Where the header, masks and palette end.
    let end: Int

    /// The header at `offset` of `bytes`; `format` names the container in errors. In an ICO
    /// the stored height counts the AND mask's rows too, and `halvesHeight` says so.
    init(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, format: ImageFormat, halvesHeight: Bool = false) throws(ImageError) {
        func u16(_ at: Int) -> Int { Int(bytes[offset + at]) | Int(bytes[offset + at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[offset + at]) | UInt32(bytes[offset + at + 1]) << 8 | UInt32(bytes[offset + at + 2]) << 16 | UInt32(bytes[offset + at + 3]) << 24
        }
        guard offset >= 0, offset + 4 <= bytes.count else { throw .truncated(format, detail: "the bitmap header is cut off") }
        let size = Int(u32(0))
        guard [12, 40, 52, 56, 64, 108, 124].contains(size) else { throw .corrupt(format, detail: "a bitmap header of \(size) bytes") }
        guard offset + size <= bytes.count else { throw .truncated(format, detail: "the bitmap header is cut off") }
        let storedHeight: Int
        var compressionCode: UInt32 = 0
        var colorsUsed = 0
        if size == 12 {
            width = u16(4)
            storedHeight = u16(6)
            bitsPerPixel = u16(10)
        } else {
            width = Int(Int32(bitPattern: u32(4)))
            storedHeight = Int(Int32(bitPattern: u32(8)))
            bitsPerPixel = u16(14)
            compressionCode = u32(16)
            colorsUsed = Int(u32(32))
        }
        guard width > 0, storedHeight != 0, storedHeight != Int(Int32.min) else {
            throw .corrupt(format, detail: "a bitmap of \(width)x\(storedHeight)")
        }
        isTopDown = storedHeight < 0
        height = halvesHeight ? abs(storedHeight) / 2 : abs(storedHeight)
        guard height > 0 else { throw .corrupt(format, detail: "a bitmap of \(width)x0") }
        switch (compressionCode, bitsPerPixel) {
        case (0, 1), (0, 4), (0, 8), (0, 16), (0, 24), (0, 32): compression = .none
        case (1, 8): compression = .rle8
        case (2, 4): compression = .rle4
        case (3, 16), (3, 32), (6, 16), (6, 32): compression = .bitFields
        case (4, _), (5, _): throw .unsupportedFormat(format, reason: "a bitmap holding a JPEG or PNG stream")
        default: throw .corrupt(format, detail: "\(bitsPerPixel) bits per pixel with compression \(compressionCode)")
        }

        // Bit fields: inside the header from version 3 on, else three (or four) masks after it.
        var masks: (UInt32, UInt32, UInt32, UInt32)
        var position = offset + size
        switch (compression, bitsPerPixel) {
        case (.bitFields, _):
            if size >= 52 {
                masks = (u32(40), u32(44), u32(48), size >= 56 ? u32(52) : 0)
            } else {
                let count = compressionCode == 6 ? 4 : 3
                guard position + 4 * count <= bytes.count else { throw .truncated(format, detail: "the bit-field masks are cut off") }
                func mask(_ index: Int) -> UInt32 {
                    let at = position + 4 * index
                    return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
                }
                masks = (mask(0), mask(1), mask(2), count == 4 ? mask(3) : 0)
                position += 4 * count
            }
        case (_, 16): masks = (0x7C00, 0x03E0, 0x001F, 0)
        case (_, 32): masks = (0x00FF_0000, 0x0000_FF00, 0x0000_00FF, size >= 56 ? u32(52) : 0)
        default: masks = (0, 0, 0, 0)
        }
        red = Mask(masks.0)
        green = Mask(masks.1)
        blue = Mask(masks.2)
        alpha = Mask(masks.3)
        hasAlphaMask = masks.3 != 0

        var palette: [RGBA] = []
        if bitsPerPixel <= 8 {
            let entries = colorsUsed > 0 ? colorsUsed : 1 << bitsPerPixel
            guard entries <= 1 << bitsPerPixel else { throw .corrupt(format, detail: "a palette of \(entries) colours for \(bitsPerPixel) bits") }
            let entrySize = size == 12 ? 3 : 4
            guard position + entries * entrySize <= bytes.count else { throw .truncated(format, detail: "the palette is cut off") }
            palette.reserveCapacity(entries)
            for index in 0..<entries {
                let at = position + index * entrySize
                palette.append(RGBA(red: bytes[at + 2], green: bytes[at + 1], blue: bytes[at], alpha: 255))
            }
            position += entries * entrySize
        }
        self.palette = palette
        end = position
    }

    /// Bytes in one stored row of uncompressed pixels, padded to four.
    var rowBytes: Int { ((width * bitsPerPixel + 31) / 32) * 4 }
}
