import Imagery

/// GIF, first frame only, in Swift (libgif is not on a fresh machine). The frame is
/// composed onto a transparent canvas of the logical screen size, a band of rows at a time
/// through the box reducer, so a draft decode holds the reduced canvas, never the full one:
/// a 62-byte file that declares a 10000×10000 screen around a 1×1 frame costs the draft's
/// size, not 400 MB. Every read is bounds-checked and LZW output is capped at the frame size,
/// so hostile data ends in an error, never an overrun or a loop.
struct GIFDecoder: FormatDecoding {
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        var reader = ByteReader(bytes)
        guard let header = reader.read(6), header.elementsEqual(Array("GIF89a".utf8)) || header.elementsEqual(Array("GIF87a".utf8)) else {
            throw .corrupt(.gif, detail: "missing GIF87a/GIF89a header")
        }
        guard let screenWidth = reader.u16(), let screenHeight = reader.u16(), let flags = reader.u8(),
              reader.u8() != nil, reader.u8() != nil else {
            throw .truncated(.gif, detail: "data ends inside the logical screen descriptor")
        }
        var globalPalette: [UInt8]?
        if flags & 0x80 != 0 {
            guard let table = reader.read(3 << (Int(flags & 7) + 1)) else { throw .truncated(.gif, detail: "data ends inside the global colour table") }
            globalPalette = Array(table)
        }
        var transparentIndex: Int?
        while true {
            guard let introducer = reader.u8() else { throw .truncated(.gif, detail: "data ends before the first image") }
            switch introducer {
            case 0x21:
                guard let label = reader.u8() else { throw .truncated(.gif, detail: "data ends inside an extension") }
                if label == 0xF9, let size = reader.u8(), size >= 4, let block = reader.read(Int(size)) {
                    let packed = block[block.startIndex]
                    transparentIndex = packed & 1 != 0 ? Int(block[block.startIndex + 3]) : nil
                    guard reader.skipSubBlocks() else { throw .truncated(.gif, detail: "data ends inside a graphic control extension") }
                } else {
                    guard reader.skipSubBlocks() else { throw .truncated(.gif, detail: "data ends inside an extension") }
                }
            case 0x2C:
                return try decodeFrame(
                    &reader, screen: PixelSize(width: screenWidth, height: screenHeight),
                    globalPalette: globalPalette, transparentIndex: transparentIndex, options: options
                )
            case 0x3B:
                throw .corrupt(.gif, detail: "file has no image (trailer before the first frame)")
            default:
                throw .corrupt(.gif, detail: "unexpected block introducer 0x\(String(introducer, radix: 16)) at offset \(reader.offset - 1)")
            }
        }
    }

    private func decodeFrame(
        _ reader: inout ByteReader, screen: PixelSize, globalPalette: [UInt8]?, transparentIndex: Int?, options: DecodingOptions
    ) throws(ImageError) -> DecodedImage {
        guard let left = reader.u16(), let top = reader.u16(), let width = reader.u16(), let height = reader.u16(),
              let flags = reader.u8() else {
            throw .truncated(.gif, detail: "data ends inside the image descriptor")
        }
        let canvas = PixelSize(width: screen.width > 0 ? screen.width : left + width, height: screen.height > 0 ? screen.height : top + height)
        try options.checkPixelLimit(width: canvas.width, height: canvas.height)
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
        var warnings: [String] = []
        let (indices, produced, complete) = try LZW.decode(&reader, minimumCodeSize: Int(minimumCodeSize), pixelCount: width * height)
        if produced < width * height || !complete {
            let detail = "LZW data ended after \(produced) of \(width * height) pixels"
            if options.policy == .strict { throw .truncated(.gif, detail: detail) }
            warnings.append(detail)
        }

        let colours = palette.count / 3
        let coversCanvas = left == 0 && top == 0 && left + width >= canvas.width && top + height >= canvas.height
        let hasTransparency = !coversCanvas || transparentIndex.map { index in indices.contains { Int($0) == index } } ?? false
        // The frame row shown at each canvas row (interlaced frames store them out of order).
        var frameRow = [Int](repeating: -1, count: height)
        for (sourceRow, y) in (flags & 0x40 != 0 ? Self.interlacedRows(height) : Array(0..<height)).enumerated() {
            frameRow[y] = sourceRow
        }
        let scale = options.draftScale(storedSize: canvas, orientation: .up)
        let factor = DecodingOptions.boxFactor(forScale: scale)
        var collector = RowCollector(width: canvas.width, height: canvas.height, factor: factor, hasAlpha: hasTransparency)
        var scratch: [UInt8] = []
        let rowBytes = canvas.width * 4
        while collector.rowsReceived < canvas.height {
            let first = collector.rowsReceived
            _ = collector.fillRows(maxRows: 16, scratch: &scratch) { (rows: UnsafeMutablePointer<UInt8>, count: Int) -> Int in
                rows.initialize(repeating: 0, count: count * rowBytes)   // transparent
                for band in 0..<count {
                    let y = first + band - top
                    guard y >= 0, y < height else { continue }
                    let row = rows + band * rowBytes, source = frameRow[y] * width
                    // A frame may lie partly or wholly outside the logical screen: clip it.
                    for x in 0..<max(0, min(width, canvas.width - left)) {
                        let index = Int(indices[source + x])
                        if index == transparentIndex { continue }
                        let out = (left + x) * 4
                        if index < colours {
                            row[out] = palette[index * 3]
                            row[out + 1] = palette[index * 3 + 1]
                            row[out + 2] = palette[index * 3 + 2]
                        }
                        row[out + 3] = 255
                    }
                }
                return count
            }
        }
        let size = collector.outputSize
        let metadata = ImageMetadata(
            format: .gif, originalWidth: canvas.width, originalHeight: canvas.height,
            decodeScale: 1 / Double(factor), warnings: warnings
        )
        let alphaMode: AlphaMode = !hasTransparency ? .opaque : (factor > 1 ? .premultiplied : .straight)
        let bitmap = Bitmap(
            width: size.width, height: size.height, pixels: collector.finish(),
            alphaMode: alphaMode, metadata: metadata
        )
        return DecodedImage(bitmap: bitmap, iccProfile: nil)
    }

    /// The stored row order of an interlaced frame: every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1.
    static func interlacedRows(_ height: Int) -> [Int] {
        Array(stride(from: 0, to: height, by: 8)) + Array(stride(from: 4, to: height, by: 8))
            + Array(stride(from: 2, to: height, by: 4)) + Array(stride(from: 1, to: height, by: 2))
    }
}
