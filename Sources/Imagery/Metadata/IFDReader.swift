/// Reads the image file directories (IFDs) of a classic TIFF structure: a TIFF file, or an
/// EXIF block (what follows JPEG's `Exif\0\0`). It is the package's only IFD walker.
/// ``ImageHeader`` reads a TIFF's size with it, ``ExifReader`` reads the orientation, and
/// ImageryCodecs' `ExifBlock` reads and edits what an image server keeps of EXIF.
///
/// Every offset and count comes from the file, which may be hostile. Each one is checked
/// against the bytes before it is used, with sums and products that cannot overflow. A
/// malformed structure gives `nil` or fewer entries, never a trap. The reader never moves from
/// one directory to the next by itself: a caller that does (through
/// ``Directory/nextDirectoryOffset``) sets its own limit, so a loop of offsets cannot hold it.
///
/// ```swift
/// guard let reader = IFDReader(exif), let first = reader.firstDirectoryOffset,
///       let ifd0 = reader.directory(at: first) else { return nil }
/// let orientation = ifd0.entries.first { $0.tag == 0x0112 }.flatMap(reader.inlineInteger)
/// ```
package struct IFDReader: Sendable {
    /// One twelve-byte directory entry.
    package struct Entry: Sendable, Hashable {
        package let tag: UInt16
        /// TIFF's field type: 1 BYTE, 2 ASCII, 3 SHORT, 4 LONG, 5 RATIONAL … 12 DOUBLE.
        package let type: UInt16
        /// How many values of ``type`` it holds, as the file says.
        package let count: Int
        /// Where its twelve bytes start.
        package let offset: Int
        /// Where its four-byte value field is (``offset`` + 8). The field holds the value when
        /// the value fits in four bytes, and the value's offset when it does not.
        package let valueField: Int
    }

    /// A directory's entries, and where the offset of the next directory is.
    package struct Directory: Sendable {
        /// Where its two-byte entry count is.
        package let offset: Int
        /// How many entries it says it has (at most 65,535).
        package let declaredCount: Int
        /// Its entries in order, at most as many as were asked for. The list stops at the
        /// first entry that runs past the end of the bytes.
        package let entries: [Entry]
        /// Where the four-byte offset of the next directory is (just after the last declared
        /// entry); `nil` when it is not inside the bytes. When it is, every declared entry is too.
        package let nextOffsetField: Int?
        /// The next directory's offset as stored (0 for none); `nil` when ``nextOffsetField`` is.
        package let nextDirectoryOffset: Int?
    }

    /// The whole structure, from its byte-order mark on.
    package let bytes: [UInt8]
    /// Motorola order (`MM`) rather than Intel (`II`).
    package let isBigEndian: Bool

    /// A reader of `bytes` if they start with a classic TIFF header: `II` or `MM`, then 42 in
    /// that byte order, in at least eight bytes. Anything else gives `nil`, BigTIFF (43) too.
    package init?(_ bytes: [UInt8]) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): isBigEndian = false
        case (0x4D, 0x4D): isBigEndian = true
        default: return nil
        }
        self.bytes = bytes
        guard uint16(at: 2) == 42 else { return nil }
    }

    /// The offset of the first directory (IFD0), as the header gives it.
    package var firstDirectoryOffset: Int? { uint32(at: 4) }

    /// The unsigned 16-bit integer at `offset`, in the structure's byte order; `nil` unless
    /// both of its bytes are inside.
    package func uint16(at offset: Int) -> Int? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let first = Int(bytes[offset]), second = Int(bytes[offset + 1])
        return isBigEndian ? first << 8 | second : second << 8 | first
    }

    /// The unsigned 32-bit integer at `offset`, in the structure's byte order; `nil` unless
    /// all four of its bytes are inside (or, where `Int` has 32 bits, when it is over `Int.max`).
    package func uint32(at offset: Int) -> Int? {
        guard offset >= 0, offset <= bytes.count - 4 else { return nil }
        let value = (0..<4).reduce(UInt32(0)) { value, index in
            value << 8 | UInt32(bytes[offset + (isBigEndian ? index : 3 - index)])
        }
        return Int(exactly: value)
    }

    /// The directory at `offset`, reading at most `maximumEntries` of its entries; `nil` when
    /// its entry count is not inside the bytes.
    package func directory(at offset: Int, maximumEntries: Int = .max) -> Directory? {
        guard let declared = uint16(at: offset) else { return nil }
        // `offset` is at most `bytes.count - 2`, so `first` is at most `bytes.count` and
        // `fitting` counts the whole entries between it and the end. Every position computed
        // below is at most `bytes.count`, so no sum or product can overflow.
        let first = offset + 2
        let fitting = (bytes.count - first) / 12
        var entries: [Entry] = []
        for index in 0..<max(0, min(declared, maximumEntries, fitting)) {
            let start = first + index * 12
            guard let tag = uint16(at: start), let type = uint16(at: start + 2), let count = uint32(at: start + 4) else { break }
            entries.append(Entry(tag: UInt16(tag), type: UInt16(type), count: count, offset: start, valueField: start + 8))
        }
        let field: Int? = declared <= fitting ? first + declared * 12 : nil
        let next = field.flatMap(uint32(at:))
        return Directory(offset: offset, declaredCount: declared, entries: entries, nextOffsetField: next == nil ? nil : field, nextDirectoryOffset: next)
    }

    /// The bytes of `entry`'s values. They are in its value field when they fit in four bytes,
    /// and at the offset that field holds when they do not. `nil` for an unknown type, no
    /// values, or values that are not wholly inside the bytes.
    package func valueRange(of entry: Entry) -> Range<Int>? {
        guard let width = Self.valueWidth(ofType: entry.type), entry.count > 0 else { return nil }
        let (size, overflow) = entry.count.multipliedReportingOverflow(by: width)
        guard !overflow, size <= bytes.count else { return nil }
        let stored: Int? = size <= 4 ? entry.valueField : uint32(at: entry.valueField)
        guard let start = stored, start >= 0, start <= bytes.count - size else { return nil }
        return start..<(start + size)
    }

    /// The values of a SHORT or LONG entry; `nil` for another type, for more than
    /// `maximumCount` values, or for values that are not wholly inside the bytes.
    package func integers(of entry: Entry, maximumCount: Int) -> [Int]? {
        guard entry.type == 3 || entry.type == 4, entry.count <= maximumCount, let range = valueRange(of: entry) else { return nil }
        let width = entry.type == 3 ? 2 : 4
        return stride(from: range.lowerBound, to: range.upperBound, by: width).compactMap { width == 2 ? uint16(at: $0) : uint32(at: $0) }
    }

    /// The first SHORT or LONG in `entry`'s value field. This is how decoders read a size or an
    /// orientation: the count is not checked. `nil` for any other type.
    package func inlineInteger(of entry: Entry) -> Int? {
        switch entry.type {
        case 3: uint16(at: entry.valueField)
        case 4: uint32(at: entry.valueField)
        default: nil
        }
    }

    /// The size of one value of field type `type`; `nil` for a type classic TIFF does not define.
    private static func valueWidth(ofType type: UInt16) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1     // BYTE, ASCII, SBYTE, UNDEFINED
        case 3, 8: 2           // SHORT, SSHORT
        case 4, 9, 11: 4       // LONG, SLONG, FLOAT
        case 5, 10, 12: 8      // RATIONAL, SRATIONAL, DOUBLE
        default: nil
        }
    }
}
