/// A processed image as the disk tier stores it: the encoded pixels behind a small header
/// that keeps what decoding learned about the *original* (its format, pixel size and EXIF
/// orientation), so a disk hit reports the source, not the thumbnail.
///
/// Layout: `IMGP`, version 2, format name length and UTF-8 bytes, original width and height
/// (UInt32, little-endian), source orientation (one byte), the source's byte count (UInt32,
/// little-endian, 0 for unknown), then the encoded image. Version 3, written only for an image
/// that keeps its source's metadata blocks (``ImageRequest/keptMetadata``, whose keys no
/// version 2 entry is stored under), adds the EXIF, XMP, IPTC and ICC blocks before the image,
/// each as a UInt32 length plus one (0 for none) and its bytes. An entry that does not parse
/// (version 1 among them, which had no byte count) is a miss, never an error.
struct ProcessedEntry: Sendable {
    let image: [UInt8]
    let format: ImageFormat?
    let originalSize: PixelSize
    let sourceOrientation: ImageOrientation
    let sourceByteCount: Int?
    let embedded: EmbeddedMetadata?

    private static let magic: [UInt8] = Array("IMGP".utf8)

    init(image: [UInt8], metadata: ImageMetadata) {
        self.image = image
        self.format = metadata.format
        self.originalSize = metadata.originalSize
        self.sourceOrientation = metadata.sourceOrientation
        self.sourceByteCount = metadata.sourceByteCount
        self.embedded = metadata.embedded
    }

    init?(stored bytes: [UInt8]) {
        let magic = Self.magic
        guard bytes.count > magic.count + 15, bytes.starts(with: magic), [2, 3].contains(bytes[magic.count]) else { return nil }
        let version = bytes[magic.count]
        var offset = magic.count + 1
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
        if version == 3 {
            var blocks: [[UInt8]?] = []
            for _ in 0..<4 {
                guard bytes.count >= offset + 4 else { return nil }
                let length = uint32(at: offset)
                offset += 4
                guard length > 0 else { blocks.append(nil); continue }
                guard bytes.count >= offset + length - 1 else { return nil }
                blocks.append(Array(bytes[offset..<(offset + length - 1)]))
                offset += length - 1
            }
            self.embedded = EmbeddedMetadata(exif: blocks[0], xmp: blocks[1], iptc: blocks[2], iccProfile: blocks[3])
        } else {
            self.embedded = nil
        }
        guard offset < bytes.count else { return nil }
        self.image = Array(bytes[offset...])
    }

    var stored: [UInt8] {
        let name = Array((format?.rawValue ?? "").utf8.prefix(255))
        var bytes = Self.magic + [embedded == nil ? 2 : 3]
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
        if let embedded {
            for block in [embedded.exif, embedded.xmp, embedded.iptc, embedded.iccProfile] {
                let length = UInt32(clamping: block.map { $0.count + 1 } ?? 0)
                bytes += (0..<4).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) }
                if let block { bytes += block }
            }
        }
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
        metadata.embedded = embedded
        return metadata
    }
}
