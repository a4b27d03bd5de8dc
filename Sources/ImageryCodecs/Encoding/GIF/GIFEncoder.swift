import Imagery

/// GIF89a in Swift, beside the decoder: each frame whole, with its own palette from
/// ``MedianCutQuantizer`` and its own LZW stream, written as it is added. Frames are written
/// whole rather than as changed rectangles (smaller files are `gifsicle -O`'s business).
struct GIFEncoder {
    private let loopCount: Int
    private var output: [UInt8] = []
    private var size: PixelSize?
    private var firstIsTransparent = false
    /// Where the last frame's disposal method is, to be set once the next frame is known.
    private var lastDisposal: Int?

    /// An encoder of an animation played `loopCount` times (0: for ever; 1 writes no loop block).
    init(loopCount: Int) {
        self.loopCount = loopCount
    }

    /// A still: one frame, no loop block.
    static func encode(_ bitmap: Bitmap) throws(ImageError) -> [UInt8] {
        var encoder = GIFEncoder(loopCount: 1)
        try encoder.add(AnimationFrame(image: bitmap, duration: .zero))
        return try encoder.finish()
    }

    mutating func add(_ frame: AnimationFrame) throws(ImageError) {
        let image = frame.image.withStraightAlpha()
        let transparent = image.hasTransparency
        if let size {
            guard size == PixelSize(width: image.width, height: image.height) else {
                throw .invalidRequest("an animation's frames must all be \(size.width)x\(size.height)")
            }
        } else {
            size = PixelSize(width: image.width, height: image.height)
            firstIsTransparent = transparent
            // No global colour table: every frame carries its own.
            output = Array("GIF89a".utf8) + Self.le16(image.width) + Self.le16(image.height) + [0x00, 0, 0]
            if loopCount != 1 {
                // NETSCAPE2.0 counts repeats after the first play; 0 is for ever.
                let repeats = loopCount == 0 ? 0 : min(loopCount - 1, 65535)
                output += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, UInt8(repeats & 0xFF), UInt8(repeats >> 8), 0]
            }
        }
        // A frame with transparent pixels must not show the one before it through them.
        if transparent { disposeLastToBackground() }
        let centiseconds = min(65535, Int((frame.duration / .milliseconds(10)).rounded()))
        lastDisposal = output.count + 3
        append(image, delay: centiseconds)
    }

    /// The file; the last frame is disposed to the background when the first, shown after it
    /// on the next loop, has transparent pixels.
    mutating func finish() throws(ImageError) -> [UInt8] {
        guard size != nil else { throw .invalidRequest("an animation needs at least one frame") }
        if firstIsTransparent, loopCount != 1 { disposeLastToBackground() }
        output.append(0x3B)
        return output
    }

    private mutating func disposeLastToBackground() {
        guard let lastDisposal else { return }
        output[lastDisposal] = output[lastDisposal] & ~0x1C | 2 << 2
    }

    /// A graphic control extension (disposal 1, "leave in place", until the next frame says
    /// otherwise) and the image, at the screen's origin.
    private mutating func append(_ bitmap: Bitmap, delay: Int) {
        let quantized = MedianCutQuantizer().quantize(bitmap)
        let transparentFlag: UInt8 = quantized.transparentIndex == nil ? 0 : 1
        output += [0x21, 0xF9, 4, 1 << 2 | transparentFlag] + Self.le16(delay) + [UInt8(quantized.transparentIndex ?? 0), 0]
        output.append(0x2C)
        output += Self.le16(0) + Self.le16(0) + Self.le16(bitmap.width) + Self.le16(bitmap.height)
        output.append(0x80 | UInt8(quantized.bits - 1))
        output += quantized.palette
        quantized.indices.withUnsafeBufferPointer {
            LZWEncoder.encode($0, minimumCodeSize: max(2, quantized.bits), into: &output)
        }
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
}
