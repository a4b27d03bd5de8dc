import Imagery

/// GIF, first frame only, in Swift (libgif is not on a fresh machine). The frame is
/// composed onto a transparent canvas of the logical screen size. Every read is
/// bounds-checked and LZW output is capped at the frame size, so hostile data ends in an
/// error, never an overrun or a loop.
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

        var pixels = [UInt8](repeating: 0, count: canvas.pixelCount * 4)
        let rowOrder = flags & 0x40 != 0 ? Self.interlacedRows(height) : Array(0..<height)
        let colours = palette.count / 3
        var hasTransparency = left > 0 || top > 0 || left + width < canvas.width || top + height < canvas.height
        for (sourceRow, y) in rowOrder.enumerated() where top + y < canvas.height {
            for x in 0..<width where left + x < canvas.width {
                let index = Int(indices[sourceRow * width + x])
                let out = ((top + y) * canvas.width + left + x) * 4
                if index == transparentIndex {
                    hasTransparency = true
                    continue
                }
                if index < colours {
                    pixels[out] = palette[index * 3]
                    pixels[out + 1] = palette[index * 3 + 1]
                    pixels[out + 2] = palette[index * 3 + 2]
                }
                pixels[out + 3] = 255
            }
        }
        let metadata = ImageMetadata(format: .gif, originalWidth: canvas.width, originalHeight: canvas.height, warnings: warnings)
        let bitmap = Bitmap(
            width: canvas.width, height: canvas.height, pixels: pixels,
            alphaMode: hasTransparency ? .straight : .opaque, metadata: metadata
        )
        return DecodedImage(bitmap: bitmap, iccProfile: nil)
    }

    /// The stored row order of an interlaced frame: every 8th from 0, every 8th from 4, every 4th from 2, every 2nd from 1.
    static func interlacedRows(_ height: Int) -> [Int] {
        Array(stride(from: 0, to: height, by: 8)) + Array(stride(from: 4, to: height, by: 8))
            + Array(stride(from: 2, to: height, by: 4)) + Array(stride(from: 1, to: height, by: 2))
    }
}

/// GIF's variable-width LZW, reading codes least-significant bit first across data sub-blocks.
enum LZW {
    static func decode(
        _ reader: inout ByteReader, minimumCodeSize: Int, pixelCount: Int
    ) throws(ImageError) -> (indices: [UInt8], produced: Int, complete: Bool) {
        var output = [UInt8](repeating: 0, count: pixelCount)
        var produced = 0
        let clear = 1 << minimumCodeSize, end = clear + 1
        var codeSize = minimumCodeSize + 1
        var next = clear + 2
        var prefix = [Int16](repeating: -1, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        var first = [UInt8](repeating: 0, count: 4096)
        for code in 0..<min(clear, 4096) { suffix[code] = UInt8(truncatingIfNeeded: code); first[code] = UInt8(truncatingIfNeeded: code) }
        var stack = [UInt8](repeating: 0, count: 4097)
        var previous = -1
        var bits = 0, bitCount = 0
        var blockRemaining = 0
        var sawEnd = false

        decoding: while produced < pixelCount {
            while bitCount < codeSize {
                if blockRemaining == 0 {
                    guard let size = reader.u8() else { break decoding }
                    if size == 0 { break decoding }
                    blockRemaining = Int(size)
                }
                guard let byte = reader.u8() else { break decoding }
                blockRemaining -= 1
                bits |= Int(byte) << bitCount
                bitCount += 8
            }
            let code = bits & ((1 << codeSize) - 1)
            bits >>= codeSize
            bitCount -= codeSize

            if code == clear {
                codeSize = minimumCodeSize + 1
                next = clear + 2
                previous = -1
                continue
            }
            if code == end { sawEnd = true; break }
            if previous == -1 {
                guard code < clear else { throw .corrupt(.gif, detail: "LZW code \(code) before any dictionary entry") }
                output[produced] = UInt8(truncatingIfNeeded: code)
                produced += 1
                previous = code
                continue
            }
            var current: Int
            var depth = 0
            if code < next {
                current = code
            } else if code == next {
                stack[depth] = first[previous]
                depth += 1
                current = previous
            } else {
                throw .corrupt(.gif, detail: "LZW code \(code) is beyond the dictionary (\(next) entries)")
            }
            let head = first[current]
            while current >= clear {
                guard depth < stack.count else { throw .corrupt(.gif, detail: "LZW chain is too long") }
                stack[depth] = suffix[current]
                depth += 1
                current = Int(prefix[current])
                guard current >= 0 else { throw .corrupt(.gif, detail: "LZW dictionary entry is undefined") }
            }
            stack[depth] = UInt8(truncatingIfNeeded: current)
            depth += 1
            while depth > 0 && produced < pixelCount {
                depth -= 1
                output[produced] = stack[depth]
                produced += 1
            }
            if next < 4096 {
                prefix[next] = Int16(previous)
                suffix[next] = head
                first[next] = first[previous]
                next += 1
                if next == 1 << codeSize && codeSize < 12 { codeSize += 1 }
            }
            previous = code
        }
        // Skip the remaining sub-blocks of this frame, if any.
        if blockRemaining > 0 { _ = reader.read(blockRemaining) }
        if !sawEnd || produced == pixelCount { _ = reader.skipSubBlocks() }
        return (output, produced, produced == pixelCount)
    }
}

/// A bounds-checked cursor over bytes.
struct ByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var offset = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func u8() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func u16() -> Int? {
        guard offset + 2 <= bytes.count else { return nil }
        defer { offset += 2 }
        return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
    }

    mutating func read(_ count: Int) -> Slice<UnsafeBufferPointer<UInt8>>? {
        guard count >= 0, offset + count <= bytes.count else { return nil }
        defer { offset += count }
        return bytes[offset..<offset + count]
    }

    /// Skips data sub-blocks up to and including the zero-length terminator. `false` if the data ends first.
    mutating func skipSubBlocks() -> Bool {
        while let size = u8() {
            if size == 0 { return true }
            guard read(Int(size)) != nil else { return false }
        }
        return false
    }
}
