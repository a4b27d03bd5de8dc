extension ImageHeader {
    /// The EXIF orientation a JPEG's APP1 segment declares, read from the markers before the
    /// image data; `nil` when it has none. Other formats say theirs when decoded.
    package static func exifOrientation(ofJPEG bytes: [UInt8]) -> ImageOrientation? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        return firstJPEGSegment(in: bytes) { marker, index in
            guard marker == 0xE1 else { return nil }
            let end = min(bytes.count, index + 2 + bigEndian(bytes, index + 2, 2)), start = index + 4
            guard end - start > 6, bytes[start..<start + 6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) else { return nil }
            return ExifReader.orientation(in: bytes[(start + 6)..<end])
        }
    }
}
