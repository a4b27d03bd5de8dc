import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// A GIF of a few dozen bytes whose logical screen is 10000×10000 around a 1×1 frame: a
/// thumbnail of it must cost the thumbnail's memory, not the screen's 400 MB.
// A hang guard, not a timing: the draft decode still walks 10,000 rows, slowly under TSan.
@Suite(.timeLimit(.minutes(10)))
struct HugeCanvasGIFTests {
    /// GIF89a, screen 10000×10000 with a two-colour table, one 1×1 frame of colour 0.
    static let gif: [UInt8] = Array("GIF89a".utf8)
        + [0x10, 0x27, 0x10, 0x27, 0x80, 0, 0]            // 10000 × 10000, global table of 2 colours
        + [200, 40, 40, 0, 0, 0]                          // the table
        + [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]               // a frame at 0,0 of 1×1, no local table
        + [2, 2, 0x44, 0x01, 0]                           // LZW: clear, 0, end of information
        + [0x3B]

    @Test("A draft decode is the draft's size; the pixel limit still applies to the screen")
    func draftDecode() throws {
        let thumbnail = try ImageDecoder().decode(Self.gif, resize: .fit(width: 256, height: 256), allowsUpscaling: false, options: DecodingOptions())
        #expect((thumbnail.width, thumbnail.height) == (256, 256))
        #expect(thumbnail.metadata.originalSize == PixelSize(width: 10_000, height: 10_000))
        var strict = DecodingOptions()
        strict.maximumPixelCount = 50_000_000
        #expect(throws: ImageError.tooLarge(width: 10_000, height: 10_000, limit: 50_000_000)) {
            try ImageDecoder().decode(Self.gif, resize: .fit(width: 256, height: 256), allowsUpscaling: false, options: strict)
        }
    }

    @Test("imagery thumbnail of it stays within 64 MB of the idle process's peak memory", .tags(.integration), .offUnderSanitizer,
          .enabled(if: ChildProcess.executable("imagery") != nil, "the imagery executable is not beside the test bundle"))
    func peakMemory() async throws {
        let imagery = try #require(ChildProcess.executable("imagery"))
        let directory = NSTemporaryDirectory() + "imagery-gif-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(Self.gif).write(to: URL(fileURLWithPath: directory + "/canvas.gif"))

        let idle = try await ChildProcess.measure(imagery, ["thumbnail", directory + "/missing.gif", "-o", directory + "/out"])
        let thumbnail = try await ChildProcess.measure(imagery, ["thumbnail", directory + "/canvas.gif", "--jobs", "1", "-o", directory + "/out"])
        #expect(idle.exitCode == 1)
        #expect(thumbnail.exitCode == 0)
        let extra = thumbnail.peakRSS - idle.peakRSS
        #expect(extra < 64 << 20, "thumbnail took \(extra >> 20) MB over the idle process")
        #expect(FileManager.default.fileExists(atPath: directory + "/out/canvas.jpg"))
    }
}
