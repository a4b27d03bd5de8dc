import Imagery

/// An EXIF block (a TIFF structure) read and edited in place, bounds-checked at every step:
/// what an image server keeps of a source's EXIF. A block that does not parse is dropped by
/// the callers, never copied half-understood.
package struct ExifBlock: Sendable {
    package private(set) var bytes: [UInt8]
    /// Reads the block as it came in; the edits go to ``bytes``.
    private let reader: IFDReader

    static let orientationTag: UInt16 = 0x0112
    static let artistTag: UInt16 = 0x013B
    static let copyrightTag: UInt16 = 0x8298
    static let thumbnailOffsetTag: UInt16 = 0x0201
    static let thumbnailLengthTag: UInt16 = 0x0202
    static let stripOffsetsTag: UInt16 = 0x0111
    static let stripByteCountsTag: UInt16 = 0x0117

    static func hasTIFFHeader(_ bytes: [UInt8]) -> Bool {
        IFDReader(bytes) != nil
    }

    package init?(_ bytes: [UInt8]) {
        guard let reader = IFDReader(bytes) else { return nil }
        self.bytes = bytes
        self.reader = reader
        guard firstIFD != nil else { return nil }
    }

    private mutating func setUInt32(_ value: Int, at index: Int) {
        setUInt16(reader.isBigEndian ? value >> 16 : value, at: index)
        setUInt16(reader.isBigEndian ? value : value >> 16, at: index + 2)
    }

    private mutating func setUInt16(_ value: Int, at index: Int) {
        bytes[index] = UInt8(truncatingIfNeeded: reader.isBigEndian ? value >> 8 : value)
        bytes[index + 1] = UInt8(truncatingIfNeeded: reader.isBigEndian ? value : value >> 8)
    }

    private var firstIFD: IFDReader.Directory? { reader.firstDirectoryOffset.flatMap(wholeDirectory(at:)) }

    /// The directory at `offset` if it is whole: at most 1,000 entries, and all of them and the
    /// next directory's offset inside the block. The edits below write only where it says.
    private func wholeDirectory(at offset: Int) -> IFDReader.Directory? {
        guard let found = reader.directory(at: offset, maximumEntries: 1000), found.declaredCount <= 1000,
              found.nextOffsetField != nil else { return nil }
        return found
    }

    /// An ASCII entry's bytes, its terminating NUL included.
    private func ascii(_ entry: IFDReader.Entry) -> [UInt8]? {
        guard entry.type == 2, entry.count <= 65535, let range = reader.valueRange(of: entry) else { return nil }
        var text = Array(reader.bytes[range])
        if text.last != 0 { text.append(0) }
        return text
    }

    /// A new block of IFD0's Artist and Copyright alone (imgproxy's `keep_copyright` while
    /// stripping); `nil` when the source names neither.
    package var copyrightOnly: [UInt8]? {
        guard let ifd = firstIFD else { return nil }
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
        guard let ifd = firstIFD, let next = ifd.nextOffsetField else { return nil }
        // Rewritten whole, as one SHORT of 1, whatever shape the source gave it: a reader that
        // took a malformed tag for 6 must not find a 6 left in it.
        if upright, let orientation = ifd.entries.first(where: { $0.tag == Self.orientationTag }) {
            let entry = orientation.offset
            copy.setUInt16(3, at: entry + 2)
            copy.setUInt32(1, at: entry + 4)
            copy.setUInt32(0, at: entry + 8)
            copy.setUInt16(1, at: entry + 8)
        }
        if let second = ifd.nextDirectoryOffset, second != 0, let thumbnail = wholeDirectory(at: second) {
            // A JPEG thumbnail, or an uncompressed one in strips: its bytes zeroed either way.
            func values(_ tag: UInt16) -> [Int]? {
                thumbnail.entries.first { $0.tag == tag }.flatMap { reader.integers(of: $0, maximumCount: 4096) }
            }
            let ranges = Array(zip(values(Self.thumbnailOffsetTag) ?? [], values(Self.thumbnailLengthTag) ?? []))
                + Array(zip(values(Self.stripOffsetsTag) ?? [], values(Self.stripByteCountsTag) ?? []))
            for (offset, length) in ranges where offset >= 0 && length >= 0 && offset <= bytes.count - length {
                for index in offset..<(offset + length) { copy.bytes[index] = 0 }
            }
        }
        for index in next..<(next + 4) { copy.bytes[index] = 0 }
        return copy.bytes
    }
}
