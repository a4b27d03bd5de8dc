/// A bounds-checked cursor over bytes.
struct ByteReader {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var offset = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int = 0) {
        self.bytes = bytes
        self.offset = min(max(0, offset), bytes.count)
    }

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
