import Foundation
import Imagery
@testable import ImageryCodecs
import ImageryTestSupport
import Testing

/// The blocks the encoders write, read back by exiftool, which shares no code with
/// `EmbeddedMetadata.read`: a writer and a reader of ours that were wrong the same way (a block
/// under a key or in a chunk no other program looks at) pass `roundTrips` but not this.
extension EmbeddedMetadataTests {
    /// Debian's libimage-exiftool-perl.
    static let exiftool = ChildProcess.onPath("exiftool")

    /// An XMP packet with a property in it, which a reader can name (the suite's own is empty).
    static let describedXMP = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreatorTool="Imagery tests"/></rdf:RDF></x:xmpmeta>"#

    @Test(
        "Written into JPEG, PNG and WebP, exiftool finds the EXIF fields, the XMP property, JPEG's IPTC and the ICC profile's description",
        .tags(.integration), .offUnderSanitizer, .timeLimit(.minutes(10)),
        .enabled(if: CIRun.runs(needing: exiftool != nil), "needs exiftool (Debian's libimage-exiftool-perl; .ci/run installs it)")
    )
    func readByExiftool() async throws {
        let exiftool = try #require(Self.exiftool, Comment(rawValue: CIRun.missing("exiftool (Debian's libimage-exiftool-perl)")))
        var options = DecodingOptions()
        options.keptMetadata = [.colorProfile]
        let image = try Thumbnailer(resize: .fit(width: 160, height: 160), decodingOptions: options).thumbnail(from: rocket)
        // Orientation 8, not 1: a reader that found no tag could not report it.
        let embedded = EmbeddedMetadata(
            exif: ExifFixture.block(orientation: 8), xmp: Array(Self.describedXMP.utf8), iptc: iptc,
            iccProfile: try #require(image.metadata.embedded?.iccProfile)
        )
        var formats: [(ImageFormat, String)] = [(.jpeg, "jpg"), (.png, "png")]
        if Self.webpOut { formats.append((.webp, "webp")) }
        for (format, fileExtension) in formats {
            var encoder = try ImageEncoder(format: format, quality: 80)
            encoder.embeddedMetadata = embedded
            let file = try encoder.encode(image)
            let read = try await Self.tags(readBy: exiftool, in: file, fileExtension: fileExtension)
            #expect(read["EXIF:Make"] == ExifFixture.make, "\(format): exiftool read \(read)")
            #expect(read["EXIF:Artist"] == ExifFixture.artist, "\(format)")
            #expect(read["EXIF:Copyright"] == ExifFixture.copyright, "\(format)")
            #expect(read["EXIF:Orientation"] == "8", "\(format)")
            #expect(read["XMP:CreatorTool"] == "Imagery tests", "\(format)")
            #expect(read["ICC_Profile:ProfileDescription"] == "Adobe RGB (1998)", "\(format): the rocket's profile")
            #expect(read["IPTC:CopyrightNotice"] == (format == .jpeg ? "(c)" : nil), "\(format): IPTC only in JPEG")
        }
    }

    /// What `exiftool` reads in `file`, by group and tag (`EXIF:Artist`); numbers as numbers
    /// (`-n`: an orientation is `8`, not its description).
    static func tags(readBy exiftool: String, in file: [UInt8], fileExtension: String) async throws -> [String: String] {
        let directory = FileManager.default.temporaryDirectory
        let input = directory.appendingPathComponent("imagery-metadata-\(UUID().uuidString).\(fileExtension)")
        let output = directory.appendingPathComponent("imagery-exiftool-\(UUID().uuidString).txt")
        defer {
            try? FileManager.default.removeItem(at: input)
            try? FileManager.default.removeItem(at: output)
        }
        try Data(file).write(to: input)
        let asked = ["EXIF:Make", "EXIF:Artist", "EXIF:Copyright", "EXIF:Orientation", "XMP:CreatorTool", "IPTC:CopyrightNotice", "ICC_Profile:ProfileDescription"]
        let outcome = try await ChildProcess.run(exiftool, ["-args", "-G0", "-n"] + asked.map { "-" + $0 } + [input.path], output: output.path)
        try #require(outcome.exitCode == 0, "exiftool exited \(outcome.exitCode) reading the .\(fileExtension)")
        // A `-Group:Tag=value` line for each tag it found.
        let lines = try String(contentsOf: output, encoding: .utf8).split(separator: "\n")
        return Dictionary(lines.compactMap { line -> (String, String)? in
            guard line.hasPrefix("-"), let equals = line.firstIndex(of: "=") else { return nil }
            return (String(line[line.index(after: line.startIndex)..<equals]), String(line[line.index(after: equals)...]))
        }, uniquingKeysWith: { first, _ in first })
    }
}
