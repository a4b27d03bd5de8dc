import Imagery

/// The pixels of a device-independent bitmap (``DIBHeader``) as straight RGBA, top row first:
/// palette, 16-, 24- and 32-bit rows, bit fields, and RLE8 and RLE4 runs. Rows stored past the
/// end of the data are a truncation: refused by the strict policy, filled with grey (and said
/// in `warnings`) by the lenient one.
struct DIBPixels {
    var pixels: [UInt8]
    var hasAlpha: Bool
    var warnings: [String] = []

    /// Decodes the pixel data at `offset` of `bytes` as `header` describes it, within `options`'
    /// pixel limit (checked before anything is allocated).
    init(_ header: DIBHeader, _ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, options: DecodingOptions, format: ImageFormat) throws(ImageError) {
        try options.checkPixelLimit(width: header.width, height: header.height)
        switch header.compression {
        case .none, .bitFields:
            self = try Self.rows(header, bytes, at: offset, options: options, format: format)
        case .rle8, .rle4:
            self = try Self.runs(header, bytes, at: offset, options: options, format: format)
        }
    }

    private init(pixels: [UInt8], hasAlpha: Bool, warnings: [String]) {
        self.pixels = pixels
        self.hasAlpha = hasAlpha
        self.warnings = warnings
    }

    private static func rows(
        _ header: DIBHeader, _ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, options: DecodingOptions, format: ImageFormat
    ) throws(ImageError) -> DIBPixels {
        let width = header.width, height = header.height, rowBytes = header.rowBytes
        // A header may claim far more rows than the file holds: the strict policy refuses it
        // before a byte is allocated for them.
        let (needed, overflow) = rowBytes.multipliedReportingOverflow(by: height)
        if options.policy == .strict, overflow || offset + needed - (rowBytes - (width * header.bitsPerPixel + 7) / 8) > bytes.count {
            throw .truncated(format, detail: "the pixel data holds \(max(0, bytes.count - offset) / max(1, rowBytes)) of \(height) rows")
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        // A 32-bit image without an alpha mask keeps its fourth byte as alpha only if some pixel
        // uses it: writers fill it with zeros as often as with alpha.
        let readsAlpha = header.bitsPerPixel == 32 && (header.hasAlphaMask || header.compression == .none)
        var anyAlpha = false
        var complete = height
        pixels.withUnsafeMutableBufferPointer { out in
            for stored in 0..<height {
                let start = offset + stored * rowBytes
                guard start >= 0, start + (width * header.bitsPerPixel + 7) / 8 <= bytes.count else {
                    complete = stored
                    break
                }
                let y = header.isTopDown ? stored : height - 1 - stored
                let row = out.baseAddress! + y * width * 4
                switch header.bitsPerPixel {
                case 1, 4, 8:
                    let bits = header.bitsPerPixel, perByte = 8 / bits, mask = (1 << bits) - 1
                    for x in 0..<width {
                        let byte = Int(bytes[start + x / perByte])
                        let index = (byte >> (8 - bits * (x % perByte + 1))) & mask
                        let color = index < header.palette.count ? header.palette[index] : RGBA(red: 0, green: 0, blue: 0, alpha: 255)
                        write(color.red, color.green, color.blue, 255, to: row + x * 4)
                    }
                case 16:
                    for x in 0..<width {
                        let pixel = UInt32(bytes[start + 2 * x]) | UInt32(bytes[start + 2 * x + 1]) << 8
                        let alpha = header.hasAlphaMask ? header.alpha.value(of: pixel) : 255
                        if alpha != 255 { anyAlpha = true }
                        write(header.red.value(of: pixel), header.green.value(of: pixel), header.blue.value(of: pixel), alpha, to: row + x * 4)
                    }
                case 24:
                    for x in 0..<width {
                        let at = start + 3 * x
                        write(bytes[at + 2], bytes[at + 1], bytes[at], 255, to: row + x * 4)
                    }
                default:   // 32
                    for x in 0..<width {
                        let at = start + 4 * x
                        let pixel = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
                        let alpha: UInt8 = !readsAlpha ? 255 : header.hasAlphaMask ? header.alpha.value(of: pixel) : bytes[at + 3]
                        if alpha != 255 { anyAlpha = true }
                        write(header.red.value(of: pixel), header.green.value(of: pixel), header.blue.value(of: pixel), alpha, to: row + x * 4)
                    }
                }
            }
        }
        var result = DIBPixels(pixels: pixels, hasAlpha: false, warnings: [])
        if header.bitsPerPixel == 32, !header.hasAlphaMask, anyAlpha {
            // All-zero fourth bytes meant "no alpha"; any other value means it is alpha.
            let allZero = stride(from: 3, to: result.pixels.count, by: 4).allSatisfy { result.pixels[$0] == 0 }
            if allZero {
                for index in stride(from: 3, to: result.pixels.count, by: 4) { result.pixels[index] = 255 }
            } else {
                result.hasAlpha = true
            }
        } else {
            result.hasAlpha = anyAlpha
        }
        if complete < height {
            try result.fillMissingRows(header, complete: complete, options: options, format: format)
        }
        return result
    }

    private static func runs(
        _ header: DIBHeader, _ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, options: DecodingOptions, format: ImageFormat
    ) throws(ImageError) -> DIBPixels {
        let width = header.width, height = header.height, isRLE4 = header.compression == .rle4
        // Pixels a run skips (by a delta or an early end) are transparent, as browsers draw them.
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var skipped = false
        var x = 0, stored = 0, position = offset, ended = false
        func put(_ index: Int) {
            guard x < width, stored < height else { return }
            let y = header.isTopDown ? stored : height - 1 - stored
            let color = index < header.palette.count ? header.palette[index] : RGBA(red: 0, green: 0, blue: 0, alpha: 255)
            let at = (y * width + x) * 4
            pixels[at] = color.red
            pixels[at + 1] = color.green
            pixels[at + 2] = color.blue
            pixels[at + 3] = 255
            x += 1
        }
        // Each pair of bytes moves on by at least one: the loop ends within the data.
        decoding: while position + 1 < bytes.count, stored < height {
            let count = Int(bytes[position]), value = Int(bytes[position + 1])
            position += 2
            if count > 0 {
                for index in 0..<count { put(isRLE4 ? (index % 2 == 0 ? value >> 4 : value & 0xF) : value) }
                continue
            }
            switch value {
            case 0:   // end of line
                if x < width { skipped = true }
                x = 0
                stored += 1
            case 1:   // end of bitmap
                ended = true
                break decoding
            case 2:   // delta
                guard position + 1 < bytes.count else { break decoding }
                x += Int(bytes[position])
                stored += Int(bytes[position + 1])
                position += 2
                skipped = true
            default:  // an absolute run of `value` pixels, padded to a whole word
                let length = isRLE4 ? (value + 1) / 2 : value
                guard position + length <= bytes.count else { break decoding }
                for index in 0..<value {
                    let byte = Int(bytes[position + (isRLE4 ? index / 2 : index)])
                    put(isRLE4 ? (index % 2 == 0 ? byte >> 4 : byte & 0xF) : byte)
                }
                position += length + (length % 2)
            }
        }
        var result = DIBPixels(pixels: pixels, hasAlpha: skipped || !ended, warnings: [])
        if !ended, stored < height {
            guard options.policy == .lenient else { throw .truncated(format, detail: "the run-length data ends at row \(stored) of \(height)") }
            result.warnings.append("the run-length data ends at row \(stored) of \(height); the rest is transparent")
        }
        return result
    }

    /// Grey rows in place of the ones the data did not hold, under the lenient policy.
    private mutating func fillMissingRows(_ header: DIBHeader, complete: Int, options: DecodingOptions, format: ImageFormat) throws(ImageError) {
        guard options.policy == .lenient else {
            throw .truncated(format, detail: "the pixel data holds \(complete) of \(header.height) rows")
        }
        for stored in complete..<header.height {
            let y = header.isTopDown ? stored : header.height - 1 - stored
            for index in y * header.width * 4..<(y + 1) * header.width * 4 { pixels[index] = index % 4 == 3 ? 255 : 128 }
        }
        warnings.append("the pixel data holds \(complete) of \(header.height) rows; the rest is grey")
    }

    @inline(__always)
    private static func write(_ red: UInt8, _ green: UInt8, _ blue: UInt8, _ alpha: UInt8, to pointer: UnsafeMutablePointer<UInt8>) {
        pointer[0] = red
        pointer[1] = green
        pointer[2] = blue
        pointer[3] = alpha
    }
}
