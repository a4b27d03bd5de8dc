import Testing
@testable import Imagery

/// `IFDReader`, the package's one reader of TIFF directories, on hostile structures in both
/// byte orders: offsets past either end, counts as large as a file can state (and made-up ones
/// up to `Int.max`), directories cut short, and next offsets that loop. Nothing may trap, and
/// whatever is not wholly inside the bytes reads as `nil`.
@Suite struct IFDReaderTests {
    /// A TIFF structure written by hand, in one byte order.
    struct Structure {
        let bigEndian: Bool
        var bytes: [UInt8]

        /// The header, naming IFD0's offset.
        init(bigEndian: Bool, firstDirectory: Int = 8) {
            self.bigEndian = bigEndian
            bytes = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
            append16(42)
            append32(firstDirectory)
        }

        mutating func append16(_ value: Int) {
            let pair = [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
            bytes += bigEndian ? pair : pair.reversed()
        }

        mutating func append32(_ value: Int) {
            let quad = (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
            bytes += bigEndian ? quad : quad.reversed()
        }

        /// One entry. The field holds one SHORT in its first two bytes; any other value, and the
        /// offset of values that do not fit, fill all four.
        mutating func appendEntry(tag: Int, type: Int, count: Int, value: Int) {
            append16(tag)
            append16(type)
            append32(count)
            if type == 3 && count == 1 {
                append16(value)
                append16(0)
            } else {
                append32(value)
            }
        }

        mutating func appendDirectory(_ entries: [(tag: Int, type: Int, count: Int, value: Int)], next: Int) {
            append16(entries.count)
            for entry in entries { appendEntry(tag: entry.tag, type: entry.type, count: entry.count, value: entry.value) }
            append32(next)
        }
    }

    @Test("The same directory written in II and in MM order reads the same: entries, values, next offset", arguments: [false, true])
    func bothByteOrders(bigEndian: Bool) throws {
        var structure = Structure(bigEndian: bigEndian)
        let text = 8 + 2 + 3 * 12 + 4
        structure.appendDirectory([(256, 3, 1, 640), (257, 4, 1, 70_000), (305, 2, 6, text)], next: 0)
        structure.bytes += Array("Tests\0".utf8)
        let reader = try #require(IFDReader(structure.bytes))
        #expect(reader.isBigEndian == bigEndian)
        #expect(reader.firstDirectoryOffset == 8)
        let directory = try #require(reader.directory(at: 8))
        #expect(directory.declaredCount == 3)
        #expect(directory.entries.map(\.tag) == [256, 257, 305])
        #expect(directory.entries.map(\.offset) == [10, 22, 34])
        #expect(directory.nextOffsetField == 46 && directory.nextDirectoryOffset == 0)
        #expect(reader.inlineInteger(of: directory.entries[0]) == 640)
        #expect(reader.inlineInteger(of: directory.entries[1]) == 70_000)
        #expect(reader.inlineInteger(of: directory.entries[2]) == nil, "ASCII holds no integer")
        #expect(reader.integers(of: directory.entries[1], maximumCount: 1) == [70_000])
        #expect(reader.integers(of: directory.entries[1], maximumCount: 0) == nil, "more values than asked for")
        let range = try #require(reader.valueRange(of: directory.entries[2]))
        #expect(Array(structure.bytes[range]) == Array("Tests\0".utf8))
    }

    @Test("Only a classic TIFF header is taken", arguments: [
        [UInt8](),
        [0x49, 0x49, 0x2A, 0, 8, 0, 0],                 // seven bytes
        [0x49, 0x4D, 0x2A, 0, 8, 0, 0, 0],              // mixed byte-order mark
        [0x49, 0x49, 0, 0x2A, 8, 0, 0, 0],              // 42 in the other byte order
        [0x4D, 0x4D, 0, 0x2B, 0, 8, 0, 0],              // BigTIFF
        [0x41, 0x41, 0x2A, 0, 8, 0, 0, 0],              // no byte-order mark
    ])
    func refusesOtherHeaders(bytes: [UInt8]) {
        #expect(IFDReader(bytes) == nil)
    }

    @Test("Offsets past either end, a directory cut short and values past the end are nil", arguments: [false, true])
    func offsetsPastTheEnd(bigEndian: Bool) throws {
        let far = try #require(IFDReader(Structure(bigEndian: bigEndian, firstDirectory: 0xFFFF_FFFF).bytes))
        #expect(far.firstDirectoryOffset.flatMap { far.directory(at: $0) } == nil)
        for offset in [-1, -2, Int.min, Int.max, Int.max - 1, Int.max - 3, far.bytes.count - 1, far.bytes.count, far.bytes.count + 1] {
            #expect(far.directory(at: offset) == nil, "\(offset)")
            #expect(far.uint16(at: offset) == nil, "\(offset)")
            #expect(far.uint32(at: offset) == nil, "\(offset)")
        }
        #expect(far.uint32(at: far.bytes.count - 3) == nil && far.uint32(at: far.bytes.count - 4) != nil)

        // Values at 0xFFFFFFFF, values that run past the end, and text that does.
        var structure = Structure(bigEndian: bigEndian)
        structure.appendDirectory([(273, 4, 2, 0xFFFF_FFFF), (279, 4, 20, 8), (270, 2, 100, 30), (271, 3, 3, 58)], next: 0)
        let reader = try #require(IFDReader(structure.bytes))
        let entries = try #require(reader.directory(at: 8)).entries
        #expect(entries.count == 4)
        for entry in entries {
            #expect(reader.valueRange(of: entry) == nil, "\(entry)")
            #expect(reader.integers(of: entry, maximumCount: .max) == nil, "\(entry)")
        }

        // Five entries declared, two there and a third begun: two read, and no next offset.
        var cut = Structure(bigEndian: bigEndian)
        cut.append16(5)
        cut.appendEntry(tag: 256, type: 3, count: 1, value: 2)
        cut.appendEntry(tag: 257, type: 3, count: 1, value: 2)
        cut.bytes += [1, 1, 3]
        let cutReader = try #require(IFDReader(cut.bytes))
        let directory = try #require(cutReader.directory(at: 8))
        #expect(directory.declaredCount == 5 && directory.entries.count == 2)
        #expect(directory.nextOffsetField == nil && directory.nextDirectoryOffset == nil)
        for maximum in [Int.min, -7, 0] { #expect(cutReader.directory(at: 8, maximumEntries: maximum)?.entries.isEmpty == true) }
        #expect(cutReader.directory(at: 8, maximumEntries: 1)?.entries.count == 1)
        #expect(ImageHeader.size(of: cut.bytes) == PixelSize(width: 2, height: 2), "the entries that are there still count")
    }

    @Test("Counts as large as a file can state, and made-up ones up to Int.max, are refused without overflow", arguments: [false, true])
    func hugeCounts(bigEndian: Bool) throws {
        // Every defined type, with the largest count a LONG holds and its values at offset 8.
        var structure = Structure(bigEndian: bigEndian)
        structure.appendDirectory((1...12).map { (tag: 0x100 + $0, type: $0, count: 0xFFFF_FFFF, value: 8) }, next: 0)
        let reader = try #require(IFDReader(structure.bytes))
        let directory = try #require(reader.directory(at: 8))
        #expect(directory.entries.count == 12)
        for entry in directory.entries {
            #expect(reader.valueRange(of: entry) == nil, "\(entry)")
            #expect(reader.integers(of: entry, maximumCount: .max) == nil, "\(entry)")
        }

        // 65,535 entries declared, none there.
        var empty = Structure(bigEndian: bigEndian)
        empty.append16(0xFFFF)
        let emptyDirectory = try #require(IFDReader(empty.bytes)?.directory(at: 8))
        #expect(emptyDirectory.declaredCount == 65_535 && emptyDirectory.entries.isEmpty && emptyDirectory.nextOffsetField == nil)

        // Entries no file can hold: counts and value fields at the ends of Int.
        var types = [UInt16](0...13)
        types.append(0xFFFF)
        for type in types {
            for count in [Int.max, Int.max / 2 + 1, Int.max / 8 + 1, Int.min, -1, 0] {
                for field in [Int.max, Int.max - 3, Int.min, -1, 8] {
                    let entry = IFDReader.Entry(tag: 1, type: type, count: count, offset: field &- 8, valueField: field)
                    #expect(reader.valueRange(of: entry) == nil, "\(entry)")
                    #expect(reader.integers(of: entry, maximumCount: .max) == nil, "\(entry)")
                    #expect(reader.inlineInteger(of: entry) == nil || field == 8, "\(entry)")
                }
            }
        }
    }

    @Test("A loop of next offsets is reported, never followed: a directory that names itself, and two that name each other", arguments: [false, true])
    func loops(bigEndian: Bool) throws {
        var selfLoop = Structure(bigEndian: bigEndian)
        selfLoop.appendDirectory([(256, 3, 1, 4), (257, 3, 1, 3)], next: 8)
        let reader = try #require(IFDReader(selfLoop.bytes))
        let directory = try #require(reader.directory(at: 8))
        #expect(directory.nextDirectoryOffset == 8 && directory.entries.count == 2)
        #expect(ImageHeader.size(of: selfLoop.bytes) == PixelSize(width: 4, height: 3))
        #expect(ExifReader.orientation(in: selfLoop.bytes) == nil)

        var pair = Structure(bigEndian: bigEndian)
        let second = 8 + 2 + 12 + 4
        pair.appendDirectory([(0x0112, 3, 1, 6)], next: second)
        pair.appendDirectory([(0x0112, 3, 1, 3)], next: 8)
        let pairReader = try #require(IFDReader(pair.bytes))
        #expect(pairReader.directory(at: 8)?.nextDirectoryOffset == second)
        #expect(pairReader.directory(at: second)?.nextDirectoryOffset == 8)
        #expect(ExifReader.orientation(in: pair.bytes) == .right, "IFD0's, read once")
    }

    @Test("Every cut and every changed byte of a structure reads without a trap; what the users read is right or nil", arguments: [false, true])
    func mutations(bigEndian: Bool) throws {
        var structure = Structure(bigEndian: bigEndian)
        let strips = 8 + 2 + 4 * 12 + 4
        structure.appendDirectory([(256, 4, 1, 640), (257, 3, 1, 480), (0x0112, 3, 1, 6), (273, 4, 2, strips)], next: 0)
        structure.append32(100)
        structure.append32(200)
        let bytes = structure.bytes

        func readAll(_ bytes: [UInt8]) {
            _ = ImageHeader.size(of: bytes)
            guard let reader = IFDReader(bytes) else { return }
            for offset in [reader.firstDirectoryOffset ?? 0, 0, 4, 8, bytes.count - 2] {
                guard let directory = reader.directory(at: offset) else { continue }
                for entry in directory.entries {
                    _ = reader.valueRange(of: entry)
                    _ = reader.integers(of: entry, maximumCount: .max)
                    _ = reader.inlineInteger(of: entry)
                }
                if let next = directory.nextDirectoryOffset { _ = reader.directory(at: next) }
            }
        }

        for length in 0...bytes.count {
            let cut = Array(bytes.prefix(length))
            readAll(cut)
            let orientation = ExifReader.orientation(in: cut)
            #expect(orientation == nil || orientation == .right, "cut at \(length)")
        }
        for index in bytes.indices {
            for value: UInt8 in [0x00, 0x7F, 0x80, 0xFF] {
                var changed = bytes
                changed[index] = value
                readAll(changed)
                _ = ExifReader.orientation(in: changed)
            }
        }

        #expect(ImageHeader.size(of: bytes) == PixelSize(width: 640, height: 480))
        #expect(ExifReader.orientation(in: bytes) == .right)
        let reader = try #require(IFDReader(bytes))
        let stripOffsets = try #require(reader.directory(at: 8)?.entries.last)
        #expect(reader.integers(of: stripOffsets, maximumCount: 2) == [100, 200])
    }
}
