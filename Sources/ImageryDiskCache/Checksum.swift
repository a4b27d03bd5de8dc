/// A 64-bit checksum over 8-byte words (multiply–xorshift mixing, as in the wyhash and
/// xxHash families): about one cycle per byte, so verifying a 20 KB entry costs a few
/// microseconds. It detects torn and corrupted entries; it is not a defence against an
/// attacker who can write to the cache directory.
enum Checksum {
    static func of(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            hash = (hash ^ word) &* 0xBF58_476D_1CE4_E5B9
            hash ^= hash >> 31
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < bytes.count {
            tail |= UInt64(bytes[offset]) << shift
            shift += 8
            offset += 1
        }
        hash = (hash ^ tail) &* 0x94D0_49BB_1331_11EB
        hash ^= hash >> 29
        return Int64(bitPattern: hash)
    }

    static func of(_ bytes: [UInt8]) -> Int64 {
        bytes.withUnsafeBytes { of($0) }
    }
}
