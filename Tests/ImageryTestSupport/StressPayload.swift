/// Payloads that say what they should be: a header (key, generation, size) and bytes derived
/// from it, so a reader can verify an entry completely, beyond the cache's own checksum.
package enum StressPayload {
    package static func make(key: Int, generation: Int, size: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(size, 24))
        withUnsafeBytes(of: UInt64(key).littleEndian) { bytes.replaceSubrange(0..<8, with: $0) }
        withUnsafeBytes(of: UInt64(generation).littleEndian) { bytes.replaceSubrange(8..<16, with: $0) }
        withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { bytes.replaceSubrange(16..<24, with: $0) }
        for index in 24..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 131 &+ key &* 7 &+ generation) }
        return bytes
    }

    package static func isValid(_ bytes: [UInt8], key: Int) -> Bool {
        guard bytes.count >= 24 else { return false }
        let header = bytes.withUnsafeBytes { raw in
            (raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
             raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        }
        guard header.0 == UInt64(key), header.2 == UInt64(bytes.count) else { return false }
        return bytes == make(key: key, generation: Int(header.1), size: bytes.count)
    }
}
