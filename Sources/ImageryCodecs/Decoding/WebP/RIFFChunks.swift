/// The EXIF and ICCP chunks of a WebP RIFF container, found with bounds-checked walking.
struct RIFFChunks {
    var exif: [UInt8]?
    var icc: [UInt8]?

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var offset = 12
        while offset + 8 <= bytes.count {
            let tag = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let start = offset + 8
            guard size >= 0, start + size <= bytes.count else { break }
            // Only the metadata chunks are copied, never the (large) image data.
            if tag == "EXIF" {
                let payload = bytes[start..<start + size]
                exif = Array(payload.starts(with: Array("Exif\0\0".utf8)) ? payload.dropFirst(6) : payload)
            } else if tag == "ICCP" {
                icc = Array(bytes[start..<start + size])
            }
            offset = start + size + (size & 1)
        }
    }
}
