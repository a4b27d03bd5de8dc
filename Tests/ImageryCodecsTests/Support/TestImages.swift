import Foundation
import Imagery
import ImageryCodecs
import Testing

/// One row of a MANIFEST.tsv: an image and what it is known to be.
struct ManifestEntry: Sendable, CustomTestStringConvertible {
    let url: URL
    let file: String
    let format: String
    let width: Int
    let height: Int
    let kind: String

    /// EXIF orientation declared in the manifest's kind column (`EXIF-orient=6`), if any.
    var orientation: ImageOrientation {
        guard let range = kind.range(of: "EXIF-orient=") else { return .up }
        return ImageOrientation(exifValue: Int(kind[range.upperBound...].prefix(1)) ?? 1)
    }

    var displaySize: PixelSize {
        orientation.swapsAxes ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
    }

    var bytes: [UInt8] { get throws { [UInt8](try Data(contentsOf: url)) } }

    /// The format its bytes are, or `nil` when unreadable or unrecognised.
    var imageFormat: ImageFormat? { (try? bytes).flatMap { ImageFormat(sniffing: $0) } }

    /// Whether its format needs a package trait (WebP, HEIF, AVIF, JPEGXL) to decode.
    var needsTrait: Bool { imageFormat.map { ![.jpeg, .png, .gif, .bmp, .ico].contains($0) } ?? false }

    /// Whether this build decodes its format.
    var isDecodable: Bool { imageFormat.map { ImageDecoder.supportedFormats.contains($0) } ?? false }

    /// A file made to be refused (the manifest's kind says `refused:`): its decode must fail
    /// with a typed error, so quality checks leave it out.
    var isRefused: Bool { kind.hasPrefix("refused") }

    var testDescription: String { file }
}

enum TestImages {
    /// Images copied into the test bundle (licences in Resources/MANIFEST.tsv and NOTICE).
    static let bundled: URL = {
        // Foundation on Linux may already resolve resourceURL to the copied folder itself.
        let candidates = [
            Bundle.module.bundleURL.appendingPathComponent("Resources"),
            Bundle.module.resourceURL,
            Bundle.module.resourceURL?.appendingPathComponent("Resources"),
        ].compactMap { $0 }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("MANIFEST.tsv").path) }
            ?? candidates[0]
    }()

    /// The team's larger corpus beside the project root, or `IMAGERY_CORPUS`; absent on a user's clone.
    static let corpus: URL? = {
        if let path = ProcessInfo.processInfo.environment["IMAGERY_CORPUS"] { return URL(fileURLWithPath: path) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidate = root.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: candidate.appendingPathComponent("MANIFEST.tsv").path) ? candidate : nil
    }()

    static var corpusIsAvailable: Bool { corpus != nil }

    static func manifest(in directory: URL?) -> [ManifestEntry] {
        guard let directory,
              let text = try? String(contentsOf: directory.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8) else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 6, let width = Int(columns[2]), let height = Int(columns[3]) else { return nil }
            return ManifestEntry(
                url: directory.appendingPathComponent(columns[0]), file: columns[0], format: columns[1],
                width: width, height: height, kind: columns[5]
            )
        }
    }

    static let bundledEntries = manifest(in: bundled).filter { !$0.file.hasPrefix("reference_") }
    static let corpusEntries = manifest(in: corpus)

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: bundled.appendingPathComponent(name)))
    }

    static func decodePNG(_ name: String) throws -> Bitmap {
        try ImageDecoder().decode(bytes(name))
    }
}

/// Builders for hostile files.
enum HostileFiles {
    /// Rewrites a PNG's IHDR size and fixes its CRC, so libpng accepts the header.
    static func png(_ bytes: [UInt8], claimingWidth width: Int, height: Int) -> [UInt8] {
        var data = bytes
        for (offset, value) in [(16, width), (20, height)] {
            for i in 0..<4 { data[offset + i] = UInt8((value >> (24 - 8 * i)) & 0xFF) }
        }
        let crc = CRC32.checksum(data[12..<29])
        for i in 0..<4 { data[29 + i] = UInt8((crc >> (24 - 8 * i)) & 0xFF) }
        return data
    }

    /// Rewrites a GIF's logical screen and first image descriptor sizes.
    static func gif(_ bytes: [UInt8], claimingWidth width: Int, height: Int) -> [UInt8] {
        var data = bytes
        data[6] = UInt8(width & 0xFF); data[7] = UInt8(width >> 8)
        data[8] = UInt8(height & 0xFF); data[9] = UInt8(height >> 8)
        return data
    }
}

enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
