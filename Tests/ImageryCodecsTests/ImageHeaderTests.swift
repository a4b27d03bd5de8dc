import Foundation
@testable import Imagery
import ImageryTestSupport
import Testing

/// `ImageHeader`, what the decoding budget charges a decode before it starts: the size each
/// bundled file declares, checked against the size in its name (not against a decoder).
struct ImageHeaderTests {
    static let files: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: Fixtures.directory.path)) ?? [])
        .filter { ["jpg", "png", "gif", "webp", "heic", "avif", "jxl", "bmp", "ico", "cur", "tif", "svg"].contains(($0 as NSString).pathExtension) }
        .filter { $0.firstMatch(of: /_(\d+)x(\d+)\./) != nil }
        .sorted()

    @Test("A progressive JPEG is told from its frame header, as its bytes arrive")
    func progressiveJPEG() {
        #expect(ImageHeader.isProgressiveJPEG(Fixtures.meadow) == true)
        #expect(ImageHeader.isProgressiveJPEG(Fixtures.rocket) == false)
        #expect(ImageHeader.isProgressiveJPEG(Array(Fixtures.meadow.prefix(12))) == nil, "the frame header has not arrived")
        #expect(ImageHeader.isProgressiveJPEG(Fixtures.logo) == false)
        #expect(ImageHeader.isProgressiveJPEG([0xFF]) == nil)
    }

    @Test("Every bundled JPEG, PNG, GIF, WebP, HEIC, AVIF, JPEG XL, TIFF and SVG declares the size in its name", arguments: files)
    func declaredSize(_ name: String) throws {
        let match = try #require(name.firstMatch(of: /_(\d+)x(\d+)\./))
        let size = try #require(ImageHeader.size(of: Fixtures.bytes(name)))
        #expect(size == PixelSize(width: Int(match.output.1)!, height: Int(match.output.2)!))
    }

    @Test("Truncated headers and other formats have no size")
    func unreadable() {
        #expect(ImageHeader.size(of: Array(Fixtures.rocket.prefix(12))) == nil)
        #expect(ImageHeader.size(of: Array(Fixtures.logo.prefix(20))) == nil)
        #expect(ImageHeader.size(of: Array("BM not really a bitmap".utf8)) == nil)
        #expect(ImageHeader.size(of: []) == nil)
    }
}
