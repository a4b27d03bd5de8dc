extension ImageHeader {
    /// How many frames a GIF or an animated WebP holds, counted by walking its blocks or
    /// chunks without decoding (each step a jump by a stored length); 1 for other formats and
    /// for stills. The count stops at `limit`, so a file of a million frames costs `limit` steps.
    package static func frameCount(of bytes: [UInt8], format: ImageFormat, limit: Int = .max) -> Int {
        switch format {
        case .gif: gifFrameCount(bytes, limit: limit)
        case .webp: webpFrameCount(bytes, limit: limit)
        default: 1
        }
    }

    private static func gifFrameCount(_ bytes: [UInt8], limit: Int) -> Int {
        guard bytes.count >= 13 else { return 1 }
        var index = 13
        if bytes[10] & 0x80 != 0 { index += 3 << (Int(bytes[10] & 7) + 1) }
        var frames = 0
        func skipSubBlocks() -> Bool {
            while index < bytes.count {
                let length = Int(bytes[index])
                index += 1 + length
                if length == 0 { return true }
            }
            return false
        }
        while index < bytes.count, frames < limit {
            switch bytes[index] {
            case 0x21:
                index += 2
                guard skipSubBlocks() else { return max(1, frames) }
            case 0x2C:
                guard index + 10 <= bytes.count else { return max(1, frames) }
                let flags = bytes[index + 9]
                index += 10
                if flags & 0x80 != 0 { index += 3 << (Int(flags & 7) + 1) }
                index += 1   // LZW minimum code size
                guard skipSubBlocks() else { return max(1, frames + 1) }
                frames += 1
            default:
                return max(1, frames)   // the trailer, or damage the decoder will report
            }
        }
        return max(1, frames)
    }

    private static func webpFrameCount(_ bytes: [UInt8], limit: Int) -> Int {
        var index = 12
        var frames = 0
        while index + 8 <= bytes.count, frames < limit {
            let length = bytes[index + 4..<index + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            if bytes[index] == 0x41, bytes[index + 1] == 0x4E, bytes[index + 2] == 0x4D, bytes[index + 3] == 0x46 {   // "ANMF"
                frames += 1
            }
            index += 8 + length + (length & 1)
        }
        return max(1, frames)
    }
}
