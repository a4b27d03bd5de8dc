import Imagery

/// A GIF's block structure, read one frame at a time: the logical screen and global palette,
/// then for each image its descriptor, palette, graphic control (delay, disposal,
/// transparency) and LZW-decoded indices. The NETSCAPE2.0 extension gives the loop count.
/// It keeps an offset, not the bytes, so a caller that holds the file can read frames on demand.
struct GIFStream {
    /// The declared logical screen; a zero side means "as large as the first frame".
    let screen: PixelSize
    let globalPalette: [UInt8]?
    /// Plays, WebP's way: 0 for ever; 1 when the file has no NETSCAPE2.0 extension.
    private(set) var loopCount = 1
    /// The canvas, fixed by the first frame's descriptor.
    private(set) var canvas: PixelSize?
    private(set) var framesRead = 0
    private var offset: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>) throws(ImageError) {
        var reader = ByteReader(bytes)
        guard let header = reader.read(6), header.elementsEqual(Array("GIF89a".utf8)) || header.elementsEqual(Array("GIF87a".utf8)) else {
            throw .corrupt(.gif, detail: "missing GIF87a/GIF89a header")
        }
        guard let screenWidth = reader.u16(), let screenHeight = reader.u16(), let flags = reader.u8(),
              reader.u8() != nil, reader.u8() != nil else {
            throw .truncated(.gif, detail: "data ends inside the logical screen descriptor")
        }
        screen = PixelSize(width: screenWidth, height: screenHeight)
        if flags & 0x80 != 0 {
            guard let table = reader.read(3 << (Int(flags & 7) + 1)) else { throw .truncated(.gif, detail: "data ends inside the global colour table") }
            globalPalette = Array(table)
        } else {
            globalPalette = nil
        }
        offset = reader.offset
    }

    /// One image of the stream, with the graphic control that preceded it.
    struct Frame {
        var left: Int, top: Int, width: Int, height: Int
        var palette: [UInt8]
        var transparentIndex: Int?
        /// 0–1 keep, 2 restore to background (transparent), 3 restore the previous canvas.
        var disposal: Int
        /// Centiseconds.
        var delay: Int
        var indices: [UInt8]
        /// The canvas row each stored row is shown at (interlaced frames store them out of order).
        var rowOrder: [Int]
        /// Set when the LZW data ended early (the rest of `indices` is index 0).
        var damage: String?

        /// Draws the frame's row `y` (0 at its top) onto `row`, the canvas row it covers, clipped
        /// to `canvasWidth`: the transparent index leaves the canvas as it is; an index past the
        /// palette is black.
        func draw(row y: Int, onto row: UnsafeMutablePointer<UInt8>, canvasWidth: Int) {
            let colours = palette.count / 3
            let source = rowOrder[y] * width
            palette.withUnsafeBufferPointer { palette in
                indices.withUnsafeBufferPointer { indices in
                    // A frame may lie partly or wholly outside the logical screen.
                    for x in 0..<max(0, min(width, canvasWidth - left)) {
                        let index = Int(indices[source + x])
                        if index == transparentIndex { continue }
                        let out = (left + x) * 4
                        if index < colours {
                            row[out] = palette[index * 3]
                            row[out + 1] = palette[index * 3 + 1]
                            row[out + 2] = palette[index * 3 + 2]
                        } else {
                            row[out] = 0
                            row[out + 1] = 0
                            row[out + 2] = 0
                        }
                        row[out + 3] = 255
                    }
                }
            }
        }
    }

    /// The next image, or `nil` at the trailer. The canvas and the frame are checked against
    /// `options.maximumPixelCount` before the frame's indices are allocated.
    mutating func nextFrame(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> Frame? {
        var reader = ByteReader(bytes, at: offset)
        defer { offset = reader.offset }
        var transparentIndex: Int?
        var disposal = 0, delay = 0
        let place = framesRead == 0 ? "before the first image" : "after frame \(framesRead)"
        while true {
            guard let introducer = reader.u8() else { throw .truncated(.gif, detail: "data ends \(place)") }
            switch introducer {
            case 0x21:
                guard let label = reader.u8() else { throw .truncated(.gif, detail: "data ends inside an extension") }
                if label == 0xF9, let size = reader.u8(), size >= 4, let block = reader.read(Int(size)) {
                    let packed = block[block.startIndex]
                    transparentIndex = packed & 1 != 0 ? Int(block[block.startIndex + 3]) : nil
                    disposal = Int(packed >> 2 & 7)
                    delay = Int(block[block.startIndex + 1]) | Int(block[block.startIndex + 2]) << 8
                } else if label == 0xFF, let plays = Self.plays(&reader) {
                    loopCount = plays
                }
                guard reader.skipSubBlocks() else { throw .truncated(.gif, detail: "data ends inside an extension") }
            case 0x2C:
                return try readImage(&reader, transparentIndex: transparentIndex, disposal: disposal, delay: delay, options: options)
            case 0x3B:
                if framesRead == 0 { throw .corrupt(.gif, detail: "file has no image (trailer before the first frame)") }
                return nil
            default:
                throw .corrupt(.gif, detail: "unexpected block introducer 0x\(String(introducer, radix: 16)) at offset \(reader.offset - 1)")
            }
        }
    }

    /// The plays a NETSCAPE2.0 (or ANIMEXTS1.0) application extension sets, the reader just past
    /// its label; `nil` for another application's block.
    private static func plays(_ reader: inout ByteReader) -> Int? {
        guard let size = reader.u8(), size == 11, let name = reader.read(11),
              name.elementsEqual(Array("NETSCAPE2.0".utf8)) || name.elementsEqual(Array("ANIMEXTS1.0".utf8)),
              let length = reader.u8(), length >= 3, let block = reader.read(Int(length)), block[block.startIndex] == 1 else { return nil }
        let stored = Int(block[block.startIndex + 1]) | Int(block[block.startIndex + 2]) << 8
        // GIF counts repeats after the first play, and 0 is for ever (as in WebP).
        return stored == 0 ? 0 : min(stored + 1, 65535)
    }

    /// What the blocks before the first image say: the first image's right and bottom edges
    /// (the canvas of a file whose screen is zero-sized) and the plays, without decoding it.
    static func preamble(_ bytes: [UInt8]) -> (extent: PixelSize, loopCount: Int) {
        bytes.withUnsafeBufferPointer { buffer in
            var loopCount = 1
            guard let stream = try? GIFStream(buffer) else { return (PixelSize(width: 0, height: 0), loopCount) }
            var reader = ByteReader(buffer, at: stream.offset)
            while let introducer = reader.u8() {
                if introducer == 0x21, let label = reader.u8() {
                    if label == 0xFF, let plays = Self.plays(&reader) { loopCount = plays }
                    guard reader.skipSubBlocks() else { break }
                } else if introducer == 0x2C, let left = reader.u16(), let top = reader.u16(), let width = reader.u16(), let height = reader.u16() {
                    return (PixelSize(width: left + width, height: top + height), loopCount)
                } else {
                    break
                }
            }
            return (PixelSize(width: 0, height: 0), loopCount)
        }
    }

    private mutating func readImage(
        _ reader: inout ByteReader, transparentIndex: Int?, disposal: Int, delay: Int, options: DecodingOptions
    ) throws(ImageError) -> Frame {
        guard let left = reader.u16(), let top = reader.u16(), let width = reader.u16(), let height = reader.u16(),
              let flags = reader.u8() else {
            throw .truncated(.gif, detail: "data ends inside the image descriptor")
        }
        if canvas == nil {
            let size = PixelSize(width: screen.width > 0 ? screen.width : left + width, height: screen.height > 0 ? screen.height : top + height)
            try options.checkPixelLimit(width: size.width, height: size.height)
            canvas = size
        }
        try options.checkPixelLimit(width: max(width, 1), height: max(height, 1))
        var palette = globalPalette
        if flags & 0x80 != 0 {
            guard let table = reader.read(3 << (Int(flags & 7) + 1)) else { throw .truncated(.gif, detail: "data ends inside the local colour table") }
            palette = Array(table)
        }
        guard let palette else { throw .corrupt(.gif, detail: "frame has no colour table") }
        guard let minimumCodeSize = reader.u8(), (1...11).contains(minimumCodeSize) else {
            throw .corrupt(.gif, detail: "invalid LZW minimum code size")
        }
        let (indices, produced, complete) = try LZW.decode(&reader, minimumCodeSize: Int(minimumCodeSize), pixelCount: width * height)
        framesRead += 1
        var rowOrder = [Int](repeating: -1, count: height)
        for (sourceRow, y) in (flags & 0x40 != 0 ? Self.interlacedRows(height) : Array(0..<height)).enumerated() {
            rowOrder[y] = sourceRow
        }
        return Frame(
            left: left, top: top, width: width, height: height, palette: palette, transparentIndex: transparentIndex,
            disposal: disposal, delay: delay, indices: indices, rowOrder: rowOrder,
            damage: produced < width * height || !complete ? "LZW data ended after \(produced) of \(width * height) pixels" : nil
        )
    }

    /// The stored row order of an interlaced frame: every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1.
    static func interlacedRows(_ height: Int) -> [Int] {
        Array(stride(from: 0, to: height, by: 8)) + Array(stride(from: 4, to: height, by: 8))
            + Array(stride(from: 2, to: height, by: 4)) + Array(stride(from: 1, to: height, by: 2))
    }
}
