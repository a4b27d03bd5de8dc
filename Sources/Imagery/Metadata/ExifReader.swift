/// Reads the few EXIF fields Imagery needs from a TIFF-structured EXIF block.
///
/// Every offset is checked against the buffer: hostile EXIF data yields `nil`, never a crash.
package enum ExifReader {
    /// The orientation of an EXIF block handed over by a C decoder: ``ImageOrientation/up``
    /// when there is none or it is malformed.
    package static func orientation(start: UnsafePointer<UInt8>?, count: Int) -> ImageOrientation {
        guard let start else { return .up }
        return orientation(in: UnsafeBufferPointer(start: start, count: count)) ?? .up
    }

    /// The orientation in IFD0 of `tiff` (the bytes after "Exif\0\0"), or `nil` if absent or malformed.
    package static func orientation(in tiff: some Collection<UInt8>) -> ImageOrientation? {
        let bytes = Array(tiff)
        guard bytes.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            let a = Int(bytes[offset]), b = Int(bytes[offset + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func u32(_ offset: Int) -> Int? {
            guard let low = u16(littleEndian ? offset : offset + 2),
                  let high = u16(littleEndian ? offset + 2 : offset) else { return nil }
            return low | high << 16
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<min(count, 512) {
            let base = ifd + 2 + entry * 12
            guard let tag = u16(base) else { return nil }
            if tag == 0x0112 {
                guard let type = u16(base + 2), type == 3, let value = u16(base + 8),
                      let orientation = ImageOrientation(rawValue: value) else { return nil }
                return orientation
            }
        }
        return nil
    }
}
