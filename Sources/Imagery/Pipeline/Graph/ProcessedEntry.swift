/// A processed image as the disk tier stores it: the encoded pixels behind a small header
/// that keeps what decoding learned about the *original* (its format, pixel size and EXIF
/// orientation), so a disk hit reports the source, not the thumbnail.
///
/// Layout: `IMGP`, version 2, format name length and UTF-8 bytes, original width and height
/// (UInt32, little-endian), source orientation (one byte), the source's byte count (UInt32,
/// little-endian, 0 for unknown), then the encoded image. An entry that does not parse
/// (version 1 among them, which had no byte count) is a miss, never an error.
struct ProcessedEntry: Sendable {
    let image: [UInt8]
    let format: ImageFormat?
    let originalSize: PixelSize
    let sourceOrientation: ImageOrientation
    let sourceByteCount: Int?

    private static let magic: [UInt8] = Array("IMGP".utf8) + [2]

    init(image: [UInt8], metadata: ImageMetadata) {
        self.image = image
        self.format = metadata.format
        self.originalSize = metadata.originalSize
        self.sourceOrientation = metadata.sourceOrientation
        self.sourceByteCount = metadata.sourceByteCount
    }

    init?(stored bytes: [UInt8]) {
        let magic = Self.magic
        guard bytes.count > magic.count + 14, bytes.starts(with: magic) else { return nil }
        var offset = magic.count
        let nameLength = Int(bytes[offset])
        offset += 1
        guard bytes.count > offset + nameLength + 13 else { return nil }
        let name = String(decoding: bytes[offset..<(offset + nameLength)], as: UTF8.self)
        offset += nameLength
        func uint32(at index: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(bytes[index + $1]) << (8 * $1) }
        }
        let width = uint32(at: offset), height = uint32(at: offset + 4)
        let orientation = ImageOrientation(rawValue: Int(bytes[offset + 8]))
        let byteCount = uint32(at: offset + 9)
        offset += 13
        guard width > 0, height > 0, let orientation else { return nil }
        self.format = nameLength == 0 ? nil : ImageFormat(rawValue: name)
        self.originalSize = PixelSize(width: width, height: height)
        self.sourceOrientation = orientation
        self.sourceByteCount = byteCount == 0 ? nil : byteCount
        self.image = Array(bytes[offset...])
    }

    var stored: [UInt8] {
        let name = Array((format?.rawValue ?? "").utf8.prefix(255))
        var bytes = Self.magic
        bytes.reserveCapacity(bytes.count + name.count + 14 + image.count)
        bytes.append(UInt8(name.count))
        bytes += name
        for value in [originalSize.width, originalSize.height] {
            let clamped = UInt32(clamping: value)
            bytes += (0..<4).map { UInt8(truncatingIfNeeded: clamped >> (8 * $0)) }
        }
        bytes.append(UInt8(sourceOrientation.rawValue))
        let count = UInt32(clamping: sourceByteCount ?? 0)
        bytes += (0..<4).map { UInt8(truncatingIfNeeded: count >> (8 * $0)) }
        bytes += image
        return bytes
    }

    /// `decoded` (the stored image's own metadata) with the original's restored.
    func restoring(_ decoded: ImageMetadata) -> ImageMetadata {
        var metadata = decoded
        metadata.format = format
        metadata.originalSize = originalSize
        metadata.sourceOrientation = sourceOrientation
        metadata.sourceByteCount = sourceByteCount
        return metadata
    }
}
