import Imagery

/// GIF's variable-width LZW, reading codes least-significant bit first across data sub-blocks.
enum LZW {
    static func decode(
        _ reader: inout ByteReader, minimumCodeSize: Int, pixelCount: Int
    ) throws(ImageError) -> (indices: [UInt8], produced: Int, complete: Bool) {
        // Raw buffers: this loop runs once a pixel, and array bounds and uniqueness checks
        // were most of its cost. Every index below is checked by the logic instead (codes
        // < 4096, output positions between `produced` and `pixelCount`).
        let output = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, pixelCount))
        output.initialize(repeating: 0, count: max(1, pixelCount))
        defer { output.deallocate() }
        var produced = 0
        let clear = 1 << minimumCodeSize, end = clear + 1
        var codeSize = minimumCodeSize + 1
        var next = clear + 2
        let prefix = UnsafeMutablePointer<Int16>.allocate(capacity: 4096)
        prefix.initialize(repeating: -1, count: 4096)
        let suffix = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
        suffix.initialize(repeating: 0, count: 4096)
        let first = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
        first.initialize(repeating: 0, count: 4096)
        let lengths = UnsafeMutablePointer<UInt16>.allocate(capacity: 4096)
        lengths.initialize(repeating: 1, count: 4096)
        defer {
            prefix.deallocate()
            suffix.deallocate()
            first.deallocate()
            lengths.deallocate()
        }
        for code in 0..<min(clear, 4096) { suffix[code] = UInt8(truncatingIfNeeded: code); first[code] = UInt8(truncatingIfNeeded: code) }
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
            // Each string is written straight into the output, last byte first, at the place
            // its length (kept per code) gives it: no stack, no second copy. Bytes past the
            // frame's end are dropped.
            let current: Int, length: Int
            if code < next {
                current = code
                length = Int(lengths[code])
            } else if code == next {
                current = previous
                length = Int(lengths[previous]) + 1
            } else {
                throw .corrupt(.gif, detail: "LZW code \(code) is beyond the dictionary (\(next) entries)")
            }
            let head = first[current]
            var position = produced + length - 1
            if code == next {
                if position < pixelCount { output[position] = head }
                position -= 1
            }
            var link = current
            while link >= clear {
                guard position > produced else { throw .corrupt(.gif, detail: "LZW chain is longer than its string") }
                if position < pixelCount { output[position] = suffix[link] }
                position -= 1
                link = Int(prefix[link])
                guard link >= 0 else { throw .corrupt(.gif, detail: "LZW dictionary entry is undefined") }
            }
            guard position == produced else { throw .corrupt(.gif, detail: "LZW chain is shorter than its string") }
            output[position] = UInt8(truncatingIfNeeded: link)
            produced = min(pixelCount, produced + length)
            if next < 4096 {
                prefix[next] = Int16(previous)
                suffix[next] = head
                first[next] = first[previous]
                lengths[next] = lengths[previous] &+ 1
                next += 1
                if next == 1 << codeSize && codeSize < 12 { codeSize += 1 }
            }
            previous = code
        }
        // Skip the remaining sub-blocks of this frame, if any.
        if blockRemaining > 0 { _ = reader.read(blockRemaining) }
        if !sawEnd || produced == pixelCount { _ = reader.skipSubBlocks() }
        return (Array(UnsafeBufferPointer(start: output, count: pixelCount)), produced, produced == pixelCount)
    }
}
