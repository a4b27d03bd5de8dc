/// GIF's variable-width LZW, writing codes least-significant bit first into 255-byte data
/// sub-blocks: the inverse of ``LZW``. The dictionary is an open-addressed hash of
/// (prefix code, index) pairs, reset with a clear code when all 4,096 codes are taken.
enum LZWEncoder {
    static func encode(_ indices: UnsafeBufferPointer<UInt8>, minimumCodeSize: Int, into output: inout [UInt8]) {
        output.append(UInt8(minimumCodeSize))
        var writer = SubBlockWriter()
        let clear = 1 << minimumCodeSize, end = clear + 1
        var codeSize = minimumCodeSize + 1
        var next = clear + 2
        // Keys are prefix << 8 | index + 1 (0 marks an empty slot); 5003 is prime, > 4096.
        let slots = 5003
        var keys = [Int32](repeating: 0, count: slots)
        var codes = [Int16](repeating: 0, count: slots)
        writer.write(clear, bits: codeSize, into: &output)
        guard var prefix = indices.first.map(Int.init) else {
            writer.write(end, bits: codeSize, into: &output)
            writer.finish(into: &output)
            return
        }
        for position in 1..<indices.count {
            let index = Int(indices[position])
            let key = Int32(prefix << 8 | index) + 1
            var slot = (prefix << 8 ^ index &* 2_654_435_761) % slots
            if slot < 0 { slot += slots }
            var found = false
            while keys[slot] != 0 {
                if keys[slot] == key { found = true; break }
                slot = slot == 0 ? slots - 1 : slot - 1
            }
            if found {
                prefix = Int(codes[slot])
                continue
            }
            writer.write(prefix, bits: codeSize, into: &output)
            if next < 4096 {
                keys[slot] = key
                codes[slot] = Int16(next)
                next += 1
                // The decoder adds its entry one code later, and widens when its count reaches
                // 2^size: so the encoder widens once its own count passes 2^size.
                if next > 1 << codeSize, codeSize < 12 { codeSize += 1 }
            } else {
                writer.write(clear, bits: codeSize, into: &output)
                keys.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
                next = clear + 2
                codeSize = minimumCodeSize + 1
            }
            prefix = index
        }
        writer.write(prefix, bits: codeSize, into: &output)
        writer.write(end, bits: codeSize, into: &output)
        writer.finish(into: &output)
    }

    /// Packs codes into bytes and bytes into sub-blocks of at most 255, ending with a 0 block.
    private struct SubBlockWriter {
        var bits = 0, bitCount = 0
        var block: [UInt8] = []

        mutating func write(_ code: Int, bits count: Int, into output: inout [UInt8]) {
            bits |= code << bitCount
            bitCount += count
            while bitCount >= 8 {
                append(UInt8(truncatingIfNeeded: bits), into: &output)
                bits >>= 8
                bitCount -= 8
            }
        }

        mutating func finish(into output: inout [UInt8]) {
            if bitCount > 0 { append(UInt8(truncatingIfNeeded: bits), into: &output) }
            if !block.isEmpty {
                output.append(UInt8(block.count))
                output.append(contentsOf: block)
            }
            output.append(0)
        }

        private mutating func append(_ byte: UInt8, into output: inout [UInt8]) {
            block.append(byte)
            if block.count == 255 {
                output.append(255)
                output.append(contentsOf: block)
                block.removeAll(keepingCapacity: true)
            }
        }
    }
}
