extension Fixtures {
    /// `bytes` (a HEIF or AVIF file) with every `ispe` box, the declared size of each item,
    /// saying width × height instead: a header that claims what the data is not.
    package static func claimingSize(_ width: UInt32, _ height: UInt32, in bytes: [UInt8]) -> [UInt8] {
        var patched = bytes
        let tag = Array("ispe".utf8)
        var found = 0
        for index in 0..<(bytes.count - 16) where Array(bytes[index..<index + 4]) == tag {
            // ispe: 4-byte version and flags, then width and height, big-endian.
            for (offset, value) in [(8, width), (12, height)] {
                for byte in 0..<4 { patched[index + offset + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(byte))) }
            }
            found += 1
        }
        precondition(found > 0, "no ispe box: not a HEIF or AVIF file")
        return patched
    }
}
