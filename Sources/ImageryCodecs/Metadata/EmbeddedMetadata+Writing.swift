import CImageryCodecs
#if WebP
import CWebP
#endif
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
    ///
    /// - Throws: `ImageError.encodingFailed` when libwebpmux cannot add WebP's chunks.
    func written(into encoded: [UInt8], format: ImageFormat) throws(ImageError) -> [UInt8] {
        guard !isEmpty else { return encoded }
        switch format {
        case .jpeg: return writtenIntoJPEG(encoded)
        case .png: return writtenIntoPNG(encoded)
        #if WebP
        case .webp: return try writtenIntoWebP(encoded)
        #endif
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

    #if WebP
    /// EXIF, XMP and the ICC profile set as chunks through libwebpmux. When it assembles the
    /// file, it writes VP8X itself (the canvas, and the flags of the chunks, of alpha and of
    /// animation), whether the encoder wrote a simple file (VP8, VP8L) or an extended one. It
    /// puts ICCP before the image and EXIF and XMP after it. An empty block is left out.
    private func writtenIntoWebP(_ webp: [UInt8]) throws(ImageError) -> [UInt8] {
        var chunks: [(fourcc: String, data: [UInt8])] = []
        if let iccProfile, !iccProfile.isEmpty { chunks.append(("ICCP", iccProfile)) }
        if let exif, !exif.isEmpty { chunks.append(("EXIF", exif)) }
        if let xmp, !xmp.isEmpty { chunks.append(("XMP ", xmp)) }
        guard !chunks.isEmpty else { return webp }
        // Copied in (`copy_data` 1), so the mux owns everything it holds and outlives the
        // buffer pointers; WebPMuxDelete frees it all.
        let created: OpaquePointer? = webp.withUnsafeBufferPointer { file in
            var data = WebPData(bytes: file.baseAddress, size: file.count)
            return WebPMuxCreate(&data, 1)
        }
        guard let mux = created else { throw .encodingFailed(.webp, detail: "libwebpmux could not read the encoded file") }
        defer { WebPMuxDelete(mux) }
        for chunk in chunks {
            let status = chunk.data.withUnsafeBufferPointer { block in
                var data = WebPData(bytes: block.baseAddress, size: block.count)
                return WebPMuxSetChunk(mux, chunk.fourcc, &data, 1)
            }
            guard status == WEBP_MUX_OK else { throw Self.muxError(status, while: "adding the \(chunk.fourcc) chunk") }
        }
        // Allocated by libwebp, and cleared on every path, failure included, as mux.h asks.
        var assembled = WebPData()
        defer { WebPDataClear(&assembled) }
        let status = WebPMuxAssemble(mux, &assembled)
        guard status == WEBP_MUX_OK, let bytes = assembled.bytes, assembled.size > 0 else {
            throw Self.muxError(status, while: "assembling the file")
        }
        return Array(UnsafeBufferPointer(start: bytes, count: assembled.size))
    }

    private static func muxError(_ status: WebPMuxError, while stage: String) -> ImageError {
        let reason = switch status {
        case WEBP_MUX_MEMORY_ERROR: "ran out of memory"
        case WEBP_MUX_BAD_DATA: "found the file malformed"
        case WEBP_MUX_INVALID_ARGUMENT: "refused an argument"
        case WEBP_MUX_OK: "returned no data"
        default: "failed with status \(status.rawValue)"
        }
        return .encodingFailed(.webp, detail: "libwebpmux \(reason) while \(stage)")
    }
    #endif
}
