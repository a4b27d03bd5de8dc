/// EXIF blocks and JPEGs carrying them, written byte by byte here rather than by the code under
/// test: a big-endian TIFF whose IFD0 has Make, Orientation, Artist and Copyright, and whose
/// IFD1 points at a thumbnail.
package enum ExifFixture {
    package static let make = "TestCam"
    package static let artist = "Ansel Test"
    package static let copyright = "(c) Imagery tests"
    /// The thumbnail's bytes: a pattern a test can look for in what is kept.
    package static let thumbnail = [UInt8](repeating: 0xAB, count: 64) + Array("THUMBNAIL-OF-THE-WHOLE".utf8)

    /// `orientationCount` other than 1 makes the orientation tag malformed, as some writers do.
    package static func block(orientation: UInt16 = 6, orientationCount: Int = 1) -> [UInt8] {
        func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value) }
        let strings: [(UInt16, [UInt8])] = [
            (0x010F, Array(make.utf8) + [0]), (0x013B, Array(artist.utf8) + [0]), (0x8298, Array(copyright.utf8) + [0]),
        ]
        // IFD0: Make, Orientation, Artist, Copyright, in tag order, then its strings.
        let ifd0Size = 2 + 4 * 12 + 4
        var data: [UInt8] = []
        var dataOffset = 8 + ifd0Size
        var entries: [UInt16: [UInt8]] = [:]
        for (tag, text) in strings {
            entries[tag] = be16(Int(tag)) + be16(2) + be32(text.count) + be32(dataOffset)
            data += text
            dataOffset += text.count
        }
        entries[0x0112] = be16(0x0112) + be16(3) + be32(orientationCount) + be16(Int(orientation)) + [0, 0]
        let ifd1Offset = dataOffset
        let ifd1Size = 2 + 2 * 12 + 4
        let thumbnailOffset = ifd1Offset + ifd1Size
        var block: [UInt8] = Array("MM".utf8) + [0, 0x2A] + be32(8) + be16(4)
        for tag in entries.keys.sorted() { block += entries[tag]! }
        block += be32(ifd1Offset) + data
        block += be16(2)
        block += be16(0x0201) + be16(4) + be32(1) + be32(thumbnailOffset)
        block += be16(0x0202) + be16(4) + be32(1) + be32(thumbnail.count)
        block += be32(0) + thumbnail
        return block
    }

    /// `jpeg` with an APP1 EXIF segment of `exif`, an APP1 XMP segment of `xmp` and an APP13
    /// of `iptc`, right after its SOI.
    package static func jpeg(_ jpeg: [UInt8], exif: [UInt8], xmp: String? = nil, iptc: [UInt8]? = nil) -> [UInt8] {
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        var segments = segment(0xE1, Array("Exif".utf8) + [0, 0] + exif)
        if let xmp { segments += segment(0xE1, Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(xmp.utf8)) }
        if let iptc { segments += segment(0xED, Array("Photoshop 3.0".utf8) + [0] + iptc) }
        return Array(jpeg[..<2]) + segments + Array(jpeg[2...])
    }

    /// The tags of a block's IFD0, its orientation, and whether it points at an IFD1: read
    /// here on their own, in either byte order.
    package static func summary(_ block: [UInt8]) -> (tags: [UInt16], orientation: Int?, hasIFD1: Bool)? {
        guard block.count >= 8 else { return nil }
        let big = block[0] == 0x4D
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= block.count else { return nil }
            return big ? Int(block[at]) << 8 | Int(block[at + 1]) : Int(block[at + 1]) << 8 | Int(block[at])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return big ? a << 16 | b : b << 16 | a
        }
        guard let first = u32(4), let count = u16(first) else { return nil }
        var tags: [UInt16] = [], orientation: Int?
        for index in 0..<count {
            guard let tag = u16(first + 2 + index * 12) else { return nil }
            tags.append(UInt16(tag))
            if tag == 0x0112 { orientation = u16(first + 2 + index * 12 + 8) }
        }
        guard let next = u32(first + 2 + count * 12) else { return nil }
        return (tags, orientation, next != 0)
    }

    /// Whether `bytes` hold `needle` anywhere.
    package static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= bytes.count else { return false }
        return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
