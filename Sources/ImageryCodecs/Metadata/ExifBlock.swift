/// An EXIF block (a TIFF structure) read and edited in place, bounds-checked at every step:
/// what an image server keeps of a source's EXIF. A block that does not parse is dropped by
/// the callers, never copied half-understood.
package struct ExifBlock: Sendable {
    package private(set) var bytes: [UInt8]
    private let bigEndian: Bool

    static let orientationTag: UInt16 = 0x0112
    static let artistTag: UInt16 = 0x013B
    static let copyrightTag: UInt16 = 0x8298
    static let thumbnailOffsetTag: UInt16 = 0x0201
    static let thumbnailLengthTag: UInt16 = 0x0202
    static let stripOffsetsTag: UInt16 = 0x0111
    static let stripByteCountsTag: UInt16 = 0x0117

    static func hasTIFFHeader(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && (bytes.starts(with: [0x49, 0x49, 0x2A, 0x00]) || bytes.starts(with: [0x4D, 0x4D, 0x00, 0x2A]))
    }

    package init?(_ bytes: [UInt8]) {
        guard Self.hasTIFFHeader(bytes) else { return nil }
        self.bytes = bytes
        bigEndian = bytes[0] == 0x4D
        guard let first = firstIFD, entries(at: first) != nil else { return nil }
    }

    /// One IFD entry: its tag, type, count, and where its value (or its value's offset) is.
    private struct Entry {
        let tag: UInt16, type: UInt16, count: Int, valueAt: Int
    }

    private func uint16(at index: Int) -> Int? {
        guard index >= 0, index + 2 <= bytes.count else { return nil }
        return bigEndian ? Int(bytes[index]) << 8 | Int(bytes[index + 1]) : Int(bytes[index + 1]) << 8 | Int(bytes[index])
    }

    private func uint32(at index: Int) -> Int? {
        guard let high = uint16(at: bigEndian ? index : index + 2), let low = uint16(at: bigEndian ? index + 2 : index) else { return nil }
        return high << 16 | low
    }

    private mutating func setUInt32(_ value: Int, at index: Int) {
        setUInt16(bigEndian ? value >> 16 : value, at: index)
        setUInt16(bigEndian ? value : value >> 16, at: index + 2)
    }

    /// The values of a SHORT or LONG entry, inline or at their offset; `nil` for any other.
    private func integers(_ entry: Entry) -> [Int]? {
        let width = entry.type == 3 ? 2 : entry.type == 4 ? 4 : 0
        guard width > 0, entry.count > 0, entry.count <= 4096 else { return nil }
        let start = entry.count * width <= 4 ? entry.valueAt : uint32(at: entry.valueAt) ?? -1
        guard start >= 0, start + entry.count * width <= bytes.count else { return nil }
        return (0..<entry.count).compactMap { width == 2 ? uint16(at: start + $0 * 2) : uint32(at: start + $0 * 4) }
    }

    private mutating func setUInt16(_ value: Int, at index: Int) {
        bytes[index] = UInt8(truncatingIfNeeded: bigEndian ? value >> 8 : value)
        bytes[index + 1] = UInt8(truncatingIfNeeded: bigEndian ? value : value >> 8)
    }

    private var firstIFD: Int? { uint32(at: 4) }

    /// The entries of the IFD at `offset`, and where its next-IFD offset is.
    private func entries(at offset: Int) -> (entries: [Entry], next: Int)? {
        guard let count = uint16(at: offset), count <= 1000, offset + 2 + count * 12 + 4 <= bytes.count else { return nil }
        var entries: [Entry] = []
        for index in 0..<count {
            let at = offset + 2 + index * 12
            guard let tag = uint16(at: at), let type = uint16(at: at + 2), let count = uint32(at: at + 4) else { return nil }
            entries.append(Entry(tag: UInt16(tag), type: UInt16(type), count: count, valueAt: at + 8))
        }
        return (entries, offset + 2 + count * 12)
    }

    /// An ASCII entry's bytes, its terminating NUL included.
    private func ascii(_ entry: Entry) -> [UInt8]? {
        guard entry.type == 2, entry.count > 0, entry.count <= 65535 else { return nil }
        let start = entry.count <= 4 ? entry.valueAt : uint32(at: entry.valueAt) ?? -1
        guard start >= 0, start + entry.count <= bytes.count else { return nil }
        var text = Array(bytes[start..<(start + entry.count)])
        if text.last != 0 { text.append(0) }
        return text
    }

    /// A new block of IFD0's Artist and Copyright alone (imgproxy's `keep_copyright` while
    /// stripping); `nil` when the source names neither.
    package var copyrightOnly: [UInt8]? {
        guard let first = firstIFD, let ifd = entries(at: first) else { return nil }
        let kept = ifd.entries.filter { [Self.artistTag, Self.copyrightTag].contains($0.tag) }
            .compactMap { entry in ascii(entry).map { (entry.tag, $0) } }
            .sorted { $0.0 < $1.0 }
        guard !kept.isEmpty else { return nil }
        // Little-endian: header, one IFD, then the strings longer than four bytes.
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
        func le16(_ value: Int) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }
        func le32(_ value: Int) -> [UInt8] { le16(value) + le16(value >> 16) }
        out += le16(kept.count)
        var dataOffset = 8 + 2 + kept.count * 12 + 4
        var data: [UInt8] = []
        for (tag, text) in kept {
            out += le16(Int(tag)) + le16(2) + le32(text.count)
            if text.count <= 4 {
                out += text + [UInt8](repeating: 0, count: 4 - text.count)
            } else {
                out += le32(dataOffset)
                data += text
                dataOffset += text.count
            }
        }
        out += le32(0)
        return out + data
    }

    /// Edited for an image that goes out without its source's thumbnail: the orientation set to
    /// 1 (upright) when `upright`, and IFD1, the embedded thumbnail of the whole original, cut
    /// off and its bytes zeroed (a crop must not carry what it cropped away).
    package func kept(upright: Bool) -> [UInt8]? {
        var copy = self
        guard let first = firstIFD, let ifd = entries(at: first) else { return nil }
        // Rewritten whole, as one SHORT of 1, whatever shape the source gave it: a reader that
        // took a malformed tag for 6 must not find a 6 left in it.
        if upright, let orientation = ifd.entries.first(where: { $0.tag == Self.orientationTag }) {
            let entry = orientation.valueAt - 8
            copy.setUInt16(3, at: entry + 2)
            copy.setUInt32(1, at: entry + 4)
            copy.setUInt32(0, at: entry + 8)
            copy.setUInt16(1, at: entry + 8)
        }
        if let second = uint32(at: ifd.next), second != 0, let thumbnail = entries(at: second) {
            // A JPEG thumbnail, or an uncompressed one in strips: its bytes zeroed either way.
            func values(_ tag: UInt16) -> [Int]? { thumbnail.entries.first { $0.tag == tag }.flatMap(integers) }
            let ranges = Array(zip(values(Self.thumbnailOffsetTag) ?? [], values(Self.thumbnailLengthTag) ?? []))
                + Array(zip(values(Self.stripOffsetsTag) ?? [], values(Self.stripByteCountsTag) ?? []))
            for (offset, length) in ranges where offset >= 0 && length >= 0 && offset <= bytes.count - length {
                for index in offset..<(offset + length) { copy.bytes[index] = 0 }
            }
        }
        for index in ifd.next..<(ifd.next + 4) { copy.bytes[index] = 0 }
        return copy.bytes
    }
}
