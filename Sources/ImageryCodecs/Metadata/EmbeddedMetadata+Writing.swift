import CImageryCodecs
import Imagery

extension EmbeddedMetadata {
    /// The formats whose files take these blocks: JPEG (APP1, APP13, APP2), PNG (eXIf, iTXt,
    /// iCCP; IPTC has no PNG chunk and is left out), WebP (VP8X's EXIF, XMP and ICCP) and, with
    /// the `AVIF` trait, AVIF (Exif and XMP items and a `prof` colour box, written by
    /// libavif as it encodes; no IPTC).
    package static let writableFormats: Set<ImageFormat> = {
        var formats: Set<ImageFormat> = [.jpeg, .png, .webp]
        #if AVIF
        formats.insert(.avif)
        #endif
        return formats
    }()

    /// `encoded`, a file of `format` as this package's encoders write it, with these blocks
    /// written in; any other format (AVIF's encoder writes its own) is returned as it is. A
    /// block too large for its container (XMP or IPTC over one JPEG segment) is left out.
    func written(into encoded: [UInt8], format: ImageFormat) -> [UInt8] {
        guard !isEmpty else { return encoded }
        switch format {
        case .jpeg: return writtenIntoJPEG(encoded)
        case .png: return writtenIntoPNG(encoded)
        case .webp: return writtenIntoWebP(encoded)
        default: return encoded
        }
    }

    // MARK: JPEG

    private func writtenIntoJPEG(_ jpeg: [UInt8]) -> [UInt8] {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return jpeg }
        // After SOI and libjpeg's JFIF APP0, which readers expect first.
        var at = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0, jpeg.count > 6 { at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5])) }
        guard at <= jpeg.count else { return jpeg }
        var segments: [UInt8] = []
        func segment(_ marker: UInt8, _ payload: [UInt8]) {
            guard payload.count + 2 <= 0xFFFF else { return }
            segments += [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        if let exif { segment(0xE1, Self.jpegExifPrefix + exif) }
        if let xmp { segment(0xE1, Self.jpegXMPPrefix + xmp) }
        if let iptc { segment(0xED, Self.jpegIPTCPrefix + iptc) }
        if let iccProfile, !iccProfile.isEmpty {
            // ICC.1's split across APP2 segments, numbered from 1, at most 255 of them.
            let room = 0xFFFF - 2 - Self.jpegICCPrefix.count - 2
            let count = (iccProfile.count + room - 1) / room
            if count <= 255 {
                for part in 0..<count {
                    let piece = iccProfile[(part * room)..<min(iccProfile.count, (part + 1) * room)]
                    segment(0xE2, Self.jpegICCPrefix + [UInt8(part + 1), UInt8(count)] + piece)
                }
            }
        }
        return Array(jpeg[..<at]) + segments + Array(jpeg[at...])
    }

    // MARK: PNG

    private func writtenIntoPNG(_ png: [UInt8]) -> [UInt8] {
        // IHDR is first, 13 bytes: the new chunks go right after it, before PLTE and IDAT.
        let afterHeader = 8 + 12 + 13
        guard png.count > afterHeader, png[12..<16].elementsEqual("IHDR".utf8) else { return png }
        var chunks: [UInt8] = []
        var profileWritten = false
        if let iccProfile, !iccProfile.isEmpty, let compressed = Self.zlib(iccProfile) {
            chunks += Self.pngChunk("iCCP", Array("ICC profile".utf8) + [0, 0] + compressed)
            profileWritten = true
        }
        if let exif { chunks += Self.pngChunk("eXIf", exif) }
        if let xmp { chunks += Self.pngChunk("iTXt", Self.pngXMPKeyword + [0, 0, 0, 0, 0] + xmp) }
        var rest = Array(png[afterHeader...])
        // A file may say sRGB or carry a profile, not both.
        // A file may say sRGB or carry a profile, not both: this package's encoder writes its
        // sRGB chunk right after IHDR.
        if profileWritten, rest.count > 12, rest[4..<8].elementsEqual("sRGB".utf8) {
            let length = rest[0..<4].reduce(0) { $0 << 8 | Int($1) }
            if 12 + length <= rest.count { rest.removeFirst(12 + length) }
        }
        return Array(png[..<afterHeader]) + chunks + rest
    }

    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        let length = UInt32(data.count)
        let body = typeBytes + data
        let crc = body.withUnsafeBufferPointer { img_crc32(0, $0.baseAddress, $0.count) }
        return (0..<4).map { UInt8(truncatingIfNeeded: length >> (24 - 8 * $0)) } + body
            + (0..<4).map { UInt8(truncatingIfNeeded: crc >> (24 - 8 * $0)) }
    }

    private static func zlib(_ bytes: [UInt8]) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        let status = bytes.withUnsafeBufferPointer { img_zlib_compress($0.baseAddress, $0.count, &out, &length) }
        guard status == IMG_OK, let out else { return nil }
        defer { img_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    // MARK: WebP

    /// A simple file (VP8 or VP8L) becomes an extended one: VP8X with the canvas size and the
    /// blocks' flags, ICCP before the image, EXIF and XMP after it. An extended file (alpha,
    /// animation) gains the flags and chunks.
    private func writtenIntoWebP(_ webp: [UInt8]) -> [UInt8] {
        guard webp.count > 20, webp[0..<4].elementsEqual("RIFF".utf8), webp[8..<12].elementsEqual("WEBP".utf8) else { return webp }
        let first = String(decoding: webp[12..<16], as: UTF8.self)
        let firstSize = (0..<4).reduce(0) { $0 | Int(webp[16 + $1]) << (8 * $1) }
        guard 20 + firstSize + (firstSize & 1) <= webp.count else { return webp }
        let iccProfile = self.iccProfile.flatMap { $0.isEmpty ? nil : $0 }
        var flags: UInt8 = 0
        if iccProfile != nil { flags |= 0x20 }
        if exif != nil { flags |= 0x08 }
        if xmp != nil { flags |= 0x04 }
        var header: [UInt8], image: [UInt8]
        switch first {
        case "VP8X":
            guard firstSize >= 10 else { return webp }
            header = Array(webp[12..<(20 + firstSize + (firstSize & 1))])
            header[8] |= flags
            image = Array(webp[(20 + firstSize + (firstSize & 1))...])
        case "VP8 ", "VP8L":
            guard let (width, height, alpha) = Self.webPCanvas(webp, kind: first) else { return webp }
            if alpha { flags |= 0x10 }
            header = Array("VP8X".utf8) + [10, 0, 0, 0, flags, 0, 0, 0]
            header += Self.le24(width - 1) + Self.le24(height - 1)
            image = Array(webp[12...])
        default:
            return webp
        }
        var body = Array("WEBP".utf8) + header
        if let iccProfile { body += Self.riffChunk("ICCP", iccProfile) }
        body += image
        if let exif { body += Self.riffChunk("EXIF", exif) }
        if let xmp { body += Self.riffChunk("XMP ", xmp) }
        return Array("RIFF".utf8) + Self.le32(body.count) + body
    }

    /// The canvas of a simple WebP: VP8's frame header or VP8L's, and whether VP8L uses alpha.
    private static func webPCanvas(_ webp: [UInt8], kind: String) -> (Int, Int, Bool)? {
        let data = 20
        if kind == "VP8L" {
            guard webp.count >= data + 5, webp[data] == 0x2F else { return nil }
            let bits = (0..<4).reduce(0) { $0 | Int(webp[data + 1 + $1]) << (8 * $1) }
            return (1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF), (bits >> 28) & 1 == 1)
        }
        guard webp.count >= data + 10, webp[data + 3] == 0x9D, webp[data + 4] == 0x01, webp[data + 5] == 0x2A else { return nil }
        let width = (Int(webp[data + 6]) | Int(webp[data + 7]) << 8) & 0x3FFF
        let height = (Int(webp[data + 8]) | Int(webp[data + 9]) << 8) & 0x3FFF
        return (width, height, false)
    }

    private static func riffChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        Array(type.utf8) + le32(data.count) + data + (data.count & 1 == 1 ? [0] : [])
    }

    private static func le24(_ value: Int) -> [UInt8] { (0..<3).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    private static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
