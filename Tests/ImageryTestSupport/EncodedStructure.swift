/// What an encoded file says about how it was written, read from its bytes: a test of an
/// encoder setting checks the file, not only that its bytes changed.
package enum EncodedStructure {
    /// A JPEG's start-of-frame marker: 0xC0 baseline, 0xC1 extended, 0xC2 progressive; `nil`
    /// when the bytes hold none.
    package static func jpegFrameMarker(_ jpeg: [UInt8]) -> UInt8? {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var index = 2
        while index + 4 <= jpeg.count {
            guard jpeg[index] == 0xFF else { return nil }
            let marker = jpeg[index + 1]
            // SOF0…SOF15, less DHT (C4), JPG (C8) and DAC (CC), which share the range.
            if (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker) { return marker }
            if marker == 0xDA { return nil }
            let length = Int(jpeg[index + 2]) << 8 | Int(jpeg[index + 3])
            index += 2 + length
        }
        return nil
    }

    /// A PNG's chunk types, in order.
    package static func pngChunks(_ png: [UInt8]) -> [String] {
        var chunks: [String] = []
        var index = 8
        while index + 8 <= png.count {
            let length = png[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            chunks.append(String(decoding: png[(index + 4)..<(index + 8)], as: UTF8.self))
            index += 12 + length
        }
        return chunks
    }

    /// A PNG's colour type from its header (2 RGB, 3 indexed, 6 RGBA) and its bits a sample.
    package static func pngColourType(_ png: [UInt8]) -> (type: UInt8, depth: UInt8)? {
        png.count > 28 && pngChunks(png).first == "IHDR" ? (png[25], png[24]) : nil
    }

    /// The entries of a PNG's palette (its PLTE chunk's length / 3); `nil` without one.
    package static func pngPaletteEntries(_ png: [UInt8]) -> Int? {
        var index = 8
        while index + 8 <= png.count {
            let length = png[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: png[(index + 4)..<(index + 8)], as: UTF8.self) == "PLTE" { return length / 3 }
            index += 12 + length
        }
        return nil
    }

    /// A PNG's interlace method from its header: 0 none, 1 Adam7.
    package static func pngInterlaceMethod(_ png: [UInt8]) -> UInt8? {
        png.count > 28 && pngChunks(png).first == "IHDR" ? png[28] : nil
    }
}
