/// Little-endian TIFFs written byte by byte, for limits no tool would write.
package enum TIFFBuilder {
    /// One directory of an RGB 8-bit image with one uncompressed strip of `stripBytes`
    /// (by default the right length) at offset 8.
    package static func header(width: Int, height: Int, stripBytes: Int? = nil) -> [UInt8] {
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + le32(8)
        let entries: [(tag: Int, type: Int, count: Int, value: Int)] = [
            (256, 4, 1, width), (257, 4, 1, height), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 2),
            (273, 4, 1, 0), (277, 3, 1, 3), (278, 4, 1, height), (279, 4, 1, stripBytes ?? width * height * 3),
        ]
        bytes += le16(entries.count)
        for entry in entries {
            bytes += le16(entry.tag) + le16(entry.type) + le32(entry.count)
            bytes += entry.type == 3 ? le16(entry.value) + [0, 0] : le32(entry.value)
        }
        bytes += le32(0)
        return bytes
    }

    /// `count` directories of a 2 x 2 RGB image (the first page orange), chained.
    package static func pages(_ count: Int) -> [UInt8] {
        let pixels: [UInt8] = Array([[UInt8]](repeating: [200, 100, 50], count: 4).joined())
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + le32(8)
        let directorySize = 2 + 10 * 12 + 4
        for page in 0..<count {
            let start = bytes.count
            let data = start + directorySize
            let next = page == count - 1 ? 0 : data + pixels.count
            let entries: [(Int, Int, Int)] = [
                (256, 3, 2), (257, 3, 2), (258, 3, 8), (259, 3, 1), (262, 3, 2), (273, 4, data), (277, 3, 3), (278, 3, 2), (279, 4, pixels.count), (284, 3, 1),
            ]
            bytes += le16(entries.count)
            for (tag, type, value) in entries {
                bytes += le16(tag) + le16(type) + le32(1) + (type == 3 ? le16(value) + [0, 0] : le32(value))
            }
            bytes += le32(next)
            bytes += pixels
        }
        return bytes
    }

    package static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    package static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(value >> (8 * $0) & 0xFF) } }
}
