import Imagery

/// GIF89a in Swift, beside the decoder: each frame whole, with its own palette from
/// ``MedianCutQuantizer`` and its own LZW stream. Frames are written whole rather than as
/// changed rectangles (smaller files are `gifsicle -O`'s business). When any frame has
/// transparent pixels every frame is disposed to transparent before the next, so a
/// transparent pixel never shows the frame beneath it.
enum GIFEncoder {
    static func encode(_ bitmap: Bitmap) -> [UInt8] {
        var output = header(width: bitmap.width, height: bitmap.height)
        append(bitmap, delay: 0, disposal: 0, to: &output)
        output.append(0x3B)
        return output
    }

    static func encode(_ animation: AnimatedImage) -> [UInt8] {
        let size = animation.size
        var output = header(width: size.width, height: size.height)
        if animation.loopCount != 1 {
            // NETSCAPE2.0 counts repeats after the first play; 0 is for ever.
            let repeats = animation.loopCount == 0 ? 0 : min(animation.loopCount - 1, 65535)
            output.append(contentsOf: [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, UInt8(repeats & 0xFF), UInt8(repeats >> 8), 0])
        }
        let disposal = animation.frames.contains { $0.image.hasTransparency } ? 2 : 1
        for frame in animation.frames {
            let centiseconds = min(65535, Int((frame.duration / .milliseconds(10)).rounded()))
            append(frame.image, delay: centiseconds, disposal: disposal, to: &output)
        }
        output.append(0x3B)
        return output
    }

    private static func header(width: Int, height: Int) -> [UInt8] {
        // No global colour table: every frame carries its own.
        Array("GIF89a".utf8) + le16(width) + le16(height) + [0x00, 0, 0]
    }

    private static func append(_ bitmap: Bitmap, delay: Int, disposal: Int, to output: inout [UInt8]) {
        let quantized = MedianCutQuantizer().quantize(bitmap.withStraightAlpha())
        let transparentFlag: UInt8 = quantized.transparentIndex == nil ? 0 : 1
        output.append(contentsOf: [0x21, 0xF9, 4, UInt8(disposal << 2) | transparentFlag] + le16(delay)
            + [UInt8(quantized.transparentIndex ?? 0), 0])
        output.append(0x2C)
        output.append(contentsOf: le16(0) + le16(0) + le16(bitmap.width) + le16(bitmap.height))
        output.append(0x80 | UInt8(quantized.bits - 1))
        output.append(contentsOf: quantized.palette)
        quantized.indices.withUnsafeBufferPointer {
            LZWEncoder.encode($0, minimumCodeSize: max(2, quantized.bits), into: &output)
        }
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
}
