import Imagery

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
