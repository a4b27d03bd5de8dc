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
        guard let reader = IFDReader(Array(tiff)), let first = reader.firstDirectoryOffset,
              let directory = reader.directory(at: first, maximumEntries: 512),
              let entry = directory.entries.first(where: { $0.tag == 0x0112 }),
              entry.type == 3, let value = reader.inlineInteger(of: entry) else { return nil }
        return ImageOrientation(rawValue: value)
    }
}
