/// A processed image as the disk tier stores it: the encoded pixels behind a small header
/// that keeps what decoding learned about the *original* (its format, pixel size and EXIF
/// orientation), so a disk hit reports the source, not the thumbnail.
///
/// Layout: `IMGP`, version 1, format name length and UTF-8 bytes, original width and height
/// (UInt32, little-endian), source orientation (one byte), then the encoded image. An entry
/// that does not parse is a miss, never an error.
struct ProcessedEntry: Sendable {
    let image: [UInt8]
    let format: ImageFormat?
    let originalSize: PixelSize
    let sourceOrientation: ImageOrientation

    private static let magic: [UInt8] = Array("IMGP".utf8) + [1]

    init(image: [UInt8], metadata: ImageMetadata) {
        self.image = image
        self.format = metadata.format
        self.originalSize = metadata.originalSize
        self.sourceOrientation = metadata.sourceOrientation
    }

    init?(stored bytes: [UInt8]) {
        let magic = Self.magic
        guard bytes.count > magic.count + 10, bytes.starts(with: magic) else { return nil }
        var offset = magic.count
        let nameLength = Int(bytes[offset])
        offset += 1
        guard bytes.count > offset + nameLength + 9 else { return nil }
        let name = String(decoding: bytes[offset..<(offset + nameLength)], as: UTF8.self)
        offset += nameLength
        func uint32(at index: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(bytes[index + $1]) << (8 * $1) }
        }
        let width = uint32(at: offset), height = uint32(at: offset + 4)
        let orientation = ImageOrientation(rawValue: Int(bytes[offset + 8]))
        offset += 9
        guard width > 0, height > 0, let orientation else { return nil }
        self.format = nameLength == 0 ? nil : ImageFormat(rawValue: name)
        self.originalSize = PixelSize(width: width, height: height)
        self.sourceOrientation = orientation
        self.image = Array(bytes[offset...])
    }

    var stored: [UInt8] {
        let name = Array((format?.rawValue ?? "").utf8.prefix(255))
        var bytes = Self.magic
        bytes.reserveCapacity(bytes.count + name.count + 10 + image.count)
        bytes.append(UInt8(name.count))
        bytes += name
        for value in [originalSize.width, originalSize.height] {
            let clamped = UInt32(clamping: value)
            bytes += (0..<4).map { UInt8(truncatingIfNeeded: clamped >> (8 * $0)) }
        }
        bytes.append(UInt8(sourceOrientation.rawValue))
        bytes += image
        return bytes
    }

    /// `decoded` (the stored image's own metadata) with the original's restored.
    func restoring(_ decoded: ImageMetadata) -> ImageMetadata {
        var metadata = decoded
        metadata.format = format
        metadata.originalSize = originalSize
        metadata.sourceOrientation = sourceOrientation
        return metadata
    }
}
