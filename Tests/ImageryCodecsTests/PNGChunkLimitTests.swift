import Foundation
import Imagery
import ImageryCodecs
import Testing

/// imgproxy's `IMGPROXY_PNG_UNLIMITED` lifts libvips's limits on PNG chunks, which otherwise
/// refuse such files. The decoder here bounds ancillary chunks too (at most 1,000 kept, 16 MiB
/// each), but one past them is dropped with a warning, never a refusal: these files decode, so
/// imagery-server has no limit to lift.
@Suite("PNG chunk limits never refuse an image")
struct PNGChunkLimitTests {
    /// `png` with `chunks` (type and data) inserted after its header chunk.
    static func inserting(_ chunks: [(type: String, data: [UInt8])], into png: [UInt8]) -> [UInt8] {
        let afterHeader = 8 + 4 + 4 + 13 + 4   // signature, then IHDR's length, type, data and CRC
        var bytes = Array(png[..<afterHeader])
        for (type, data) in chunks {
            let typeBytes = Array(type.utf8)
            bytes += withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init)
            bytes += typeBytes + data
            bytes += withUnsafeBytes(of: crc32(typeBytes + data).bigEndian, Array.init)
        }
        return bytes + png[afterHeader...]
    }

    /// The CRC-32 PNG chunks end with (ISO 3309, polynomial 0xEDB88320).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    @Test("2,000 text chunks and one of 17 MiB: decoded, strictly, to the image's own pixels")
    func manyAndLargeChunks() throws {
        let original = try TestImages.bytes("png_gray_camera_512x512.png")
        let many = (0..<2000).map { index in (type: "tEXt", data: Array("Comment\u{0}note \(index)".utf8)) }
        let large = [(type: "tEXt", data: Array("Comment\u{0}".utf8) + [UInt8](repeating: 65, count: 17 << 20))]
        let expected = try ImageDecoder().decode(original)
        for chunks in [many, large] {
            let decoded = try ImageDecoder().decode(Self.inserting(chunks, into: original))
            #expect(decoded.width == 512 && decoded.height == 512)
            #expect(decoded.pixels == expected.pixels)
        }
    }
}
