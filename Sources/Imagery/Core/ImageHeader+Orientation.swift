extension ImageHeader {
    /// The EXIF orientation a JPEG's APP1 segment declares, read from the markers before the
    /// image data; `nil` when it has none. Other formats say theirs when decoded.
    package static func exifOrientation(ofJPEG bytes: [UInt8]) -> ImageOrientation? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            // Start of scan or end of image: no metadata follows.
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            guard length >= 2, offset + 2 + length <= bytes.count else { return nil }
            let body = (offset + 4)..<(offset + 2 + length)
            if marker == 0xE1, body.count > 6, bytes[body.lowerBound..<body.lowerBound + 6].elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) {
                return ExifReader.orientation(in: bytes[(body.lowerBound + 6)..<body.upperBound])
            }
            offset += 2 + length
        }
        return nil
    }
}
