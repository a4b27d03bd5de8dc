#if AVIF
import CAvif
#endif
import Imagery

extension EmbeddedMetadata {
    /// The blocks `data`'s container carries beside its pixels: EXIF and XMP from JPEG, PNG,
    /// WebP and (with the `AVIF` trait) AVIF, IPTC from JPEG; `iccProfile` is the decoder's, which every format reads. Only the
    /// container's headers are walked, never the image data, and a block that is malformed or
    /// runs past the end is left out rather than guessed at.
    static func read(from data: [UInt8], format: ImageFormat, iccProfile: [UInt8]?) -> EmbeddedMetadata {
        // Only an RGB profile can go out with the RGB pixels the decoders make: a CMYK or grey
        // one would describe colours the answer does not have.
        let rgb = iccProfile.map { $0.count >= 128 && $0[16..<20].elementsEqual("RGB ".utf8) } ?? false
        var metadata = EmbeddedMetadata(iccProfile: rgb ? iccProfile : nil)
        switch format {
        case .jpeg: readJPEG(data, into: &metadata)
        case .png: readPNG(data, into: &metadata)
        case .webp: readWebP(data, into: &metadata)
        #if AVIF
        case .avif: readAVIF(data, into: &metadata)
        #endif
        default: break
        }
        if let exif = metadata.exif, !ExifBlock.hasTIFFHeader(exif) { metadata.exif = nil }
        return metadata
    }

    static let jpegExifPrefix: [UInt8] = Array("Exif".utf8) + [0, 0]
    static let jpegXMPPrefix: [UInt8] = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    static let jpegIPTCPrefix: [UInt8] = Array("Photoshop 3.0".utf8) + [0]
    static let jpegICCPrefix: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
    static let pngXMPKeyword: [UInt8] = Array("XML:com.adobe.xmp".utf8)

    /// The segments before the first scan: APP1 (EXIF, XMP) and APP13 (IPTC).
    private static func readJPEG(_ data: [UInt8], into metadata: inout EmbeddedMetadata) {
        var index = 2
        while index + 4 <= data.count, data[index] == 0xFF {
            let marker = data[index + 1]
            if marker == 0xFF { index += 1; continue }   // fill byte
            if marker == 0xDA || marker == 0xD9 { return }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { index += 2; continue }
            let length = Int(data[index + 2]) << 8 | Int(data[index + 3])
            guard length >= 2, index + 2 + length <= data.count else { return }
            let payload = data[(index + 4)..<(index + 2 + length)]
            if marker == 0xE1, metadata.exif == nil, payload.starts(with: jpegExifPrefix) {
                metadata.exif = Array(payload.dropFirst(jpegExifPrefix.count))
            } else if marker == 0xE1, metadata.xmp == nil, payload.starts(with: jpegXMPPrefix) {
                metadata.xmp = Array(payload.dropFirst(jpegXMPPrefix.count))
            } else if marker == 0xED, metadata.iptc == nil, payload.starts(with: jpegIPTCPrefix) {
                metadata.iptc = iptcResource(in: Array(payload.dropFirst(jpegIPTCPrefix.count)))
            }
            index += 2 + length
        }
    }

    /// The IPTC record alone (Photoshop resource 0x0404) of an APP13's resources: the others
    /// include Photoshop's thumbnails of the whole original, which a crop must not carry.
    static func iptcResource(in resources: [UInt8]) -> [UInt8]? {
        var index = 0
        while index + 12 <= resources.count, resources[index..<(index + 4)].elementsEqual("8BIM".utf8) {
            let id = Int(resources[index + 4]) << 8 | Int(resources[index + 5])
            // A Pascal name, padded to an even length with its length byte.
            let nameLength = Int(resources[index + 6])
            let sizeAt = index + 6 + ((nameLength + 2) & ~1)
            guard sizeAt + 4 <= resources.count else { return nil }
            let size = resources[sizeAt..<(sizeAt + 4)].reduce(0) { $0 << 8 | Int($1) }
            let dataAt = sizeAt + 4
            guard size <= resources.count - dataAt else { return nil }
            if id == 0x0404 {
                return Array(resources[index..<(dataAt + size)]) + (size & 1 == 1 ? [0] : [])
            }
            index = dataAt + size + (size & 1)
        }
        return nil
    }

    /// The chunks before the image data: eXIf, and iTXt's uncompressed XMP.
    private static func readPNG(_ data: [UInt8], into metadata: inout EmbeddedMetadata) {
        var index = 8
        while index + 12 <= data.count {
            let length = data[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard length <= data.count - index - 12 else { return }
            let type = String(decoding: data[(index + 4)..<(index + 8)], as: UTF8.self)
            let body = data[(index + 8)..<(index + 8 + length)]
            if type == "IDAT" { return }
            if type == "eXIf", metadata.exif == nil {
                metadata.exif = Array(body)
            } else if type == "iTXt", metadata.xmp == nil, body.starts(with: pngXMPKeyword + [0, 0]) {
                // keyword, NUL, compression flag (0: none), method, language NUL, translated keyword NUL, text
                var fields = body.dropFirst(pngXMPKeyword.count + 3)
                for _ in 0..<2 {
                    guard let end = fields.firstIndex(of: 0) else { fields = []; break }
                    fields = fields[(end + 1)...]
                }
                if !fields.isEmpty { metadata.xmp = Array(fields) }
            }
            index += 12 + length
        }
    }

    #if AVIF
    /// The Exif and XMP items, as libavif reads them with the container (no AV1 is decoded).
    /// libavif drops the 4-byte offset before the Exif item's TIFF header.
    private static func readAVIF(_ data: [UInt8], into metadata: inout EmbeddedMetadata) {
        guard let decoder = avifDecoderCreate() else { return }
        defer { avifDecoderDestroy(decoder) }
        decoder.pointee.strictFlags = avifStrictFlags(AVIF_STRICT_DISABLED.rawValue)
        let parsed = data.withUnsafeBufferPointer { bytes in
            avifDecoderSetIOMemory(decoder, bytes.baseAddress, bytes.count) == AVIF_RESULT_OK ? avifDecoderParse(decoder) : AVIF_RESULT_IO_ERROR
        }
        guard parsed == AVIF_RESULT_OK, let image = decoder.pointee.image?.pointee else { return }
        func bytes(_ item: avifRWData) -> [UInt8]? {
            item.size == 0 || item.size > data.count ? nil : Array(UnsafeBufferPointer(start: item.data, count: item.size))
        }
        metadata.exif = bytes(image.exif)
        metadata.xmp = bytes(image.xmp)
    }
    #endif

    /// RIFF's EXIF and XMP chunks (some writers put JPEG's `Exif\0\0` before the TIFF header).
    private static func readWebP(_ data: [UInt8], into metadata: inout EmbeddedMetadata) {
        var index = 12
        while index + 8 <= data.count {
            let size = (0..<4).reduce(0) { $0 | Int(data[index + 4 + $1]) << (8 * $1) }
            guard size <= data.count - index - 8 else { return }
            let type = String(decoding: data[index..<(index + 4)], as: UTF8.self)
            let body = data[(index + 8)..<(index + 8 + size)]
            if type == "EXIF", metadata.exif == nil {
                metadata.exif = Array(body.starts(with: jpegExifPrefix) ? body.dropFirst(jpegExifPrefix.count) : body)
            } else if type == "XMP ", metadata.xmp == nil {
                metadata.xmp = Array(body)
            }
            index += 8 + size + (size & 1)
        }
    }
}

extension DecodingOptions {
    /// How an encoder's own output is decoded to be measured against the pixels it was made
    /// from: as stored, neither turned by an EXIF orientation it carries nor converted from an
    /// ICC profile it carries, since the pixels it was made from were neither.
    package static var asEncoded: DecodingOptions {
        var options = DecodingOptions()
        options.appliesOrientation = false
        options.convertsToSRGB = false
        return options
    }
}
