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
            var payload = Array(bytes[start..<start + size])
            if tag == "EXIF" {
                if payload.starts(with: Array("Exif\0\0".utf8)) { payload.removeFirst(6) }
                exif = payload
            } else if tag == "ICCP" {
                icc = payload
            }
            offset = start + size + (size & 1)
        }
    }
}
