import Imagery
@testable import ImageryCodecs
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// imgproxy's `strip_metadata`, `keep_copyright` and `strip_color_profile`, and their
/// `IMGPROXY_*` settings, end to end: what of a photo's EXIF, XMP, IPTC and ICC profile reaches
/// the file a client gets.
extension ServerTests {
    static let xmp = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>"#
    static let iptc: [UInt8] = Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0, 0, 0, 4] + [0x1C, 0x02, 0x74, 0x00]

    static func metadataOrigin() throws -> TestHTTPServer {
        let photo = ExifFixture.jpeg(Fixtures.rocket, exif: ExifFixture.block(orientation: 6), xmp: xmp, iptc: iptc)
        return try TestHTTPServer { request in request.path == "/photo.jpg" ? .ok(photo) : .status(404) }
    }

    /// The blocks in an answer, read from its bytes, the profile by the format's own decoder.
    static func blocks(_ reply: ServerHarness.Reply, _ format: ImageFormat) throws -> EmbeddedMetadata {
        var read = EmbeddedMetadata.read(from: reply.body, format: format, iccProfile: nil)
        var options = DecodingOptions()
        options.keptMetadata = [.colorProfile]
        read.iccProfile = try ImageDecoder().decode(reply.body, options: options).metadata.embedded?.iccProfile
        return read
    }

    @Test("By default only the EXIF copyright and artist survive; sm:0 keeps EXIF (upright, no thumbnail), XMP and IPTC; kcr:0 strips all; scp:0 keeps the profile")
    func metadataOptions() async throws {
        let origin = try Self.metadataOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        let sourceProfile = try #require(try ImageDecoder().decode(Fixtures.rocket, options: { var o = DecodingOptions(); o.keptMetadata = [.colorProfile]; return o }()).metadata.embedded?.iccProfile)

        let standard = try Self.blocks(try await server.get(Self.plain(origin, "/photo.jpg", options: "w:200")), .jpeg)
        #expect(standard.exif.flatMap(ExifFixture.summary)?.tags == [0x013B, 0x8298], "copyright and artist only")
        #expect(standard.xmp == nil && standard.iptc == nil && standard.iccProfile == nil)

        let kept = try await server.get(Self.plain(origin, "/photo.jpg", options: "w:200/sm:0"))
        #expect(ServerHarness.expectImage(kept, .jpeg)?.width == 200)
        let whole = try Self.blocks(kept, .jpeg)
        let summary = try #require(whole.exif.flatMap(ExifFixture.summary))
        #expect(summary.tags == [0x010F, 0x0112, 0x013B, 0x8298] && summary.orientation == 1 && !summary.hasIFD1)
        #expect(!ExifFixture.contains(kept.body, ExifFixture.thumbnail), "the original's thumbnail left with it")
        #expect(whole.xmp == Array(Self.xmp.utf8) && whole.iptc == Self.iptc)
        // The decoder reads the kept orientation as 1: the upright pixels are not turned again.
        let decoded = try ImageDecoder().decode(kept.body)
        #expect(decoded.height > decoded.width)

        let none = try Self.blocks(try await server.get(Self.plain(origin, "/photo.jpg", options: "w:200/kcr:0")), .jpeg)
        #expect(none.exif == nil && none.xmp == nil)

        let profiled = try Self.blocks(try await server.get(Self.plain(origin, "/photo.jpg", options: "w:200/scp:0")), .jpeg)
        #expect(profiled.iccProfile == sourceProfile)

        let png = try Self.blocks(try await server.get(Self.plain(origin, "/photo.jpg", options: "w:200/sm:0/scp:0/f:png")), .png)
        #expect(png.exif.flatMap(ExifFixture.summary)?.orientation == 1 && png.xmp == Array(Self.xmp.utf8) && png.iccProfile == sourceProfile)
    }

    @Test("Kept EXIF never turns the answer's measure: sm:0 with ar:0, and a malformed orientation, under f:best and aq:dssim are answered, upright where turned")
    func keptOrientationUnderQualitySearch() async throws {
        let photo = ExifFixture.jpeg(Fixtures.rocket, exif: ExifFixture.block(orientation: 6))
        let malformed = ExifFixture.jpeg(Fixtures.rocket, exif: ExifFixture.block(orientation: 6, orientationCount: 2))
        let origin = try TestHTTPServer { request in
            request.path == "/photo.jpg" ? .ok(photo) : request.path == "/malformed.jpg" ? .ok(malformed) : .status(404)
        }
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        for options in ["w:160/sm:0/ar:0/f:best", "w:160/sm:0/ar:0/aq:dssim:0.02", "w:160/sm:0/f:best", "w:160/sm:0/aq:dssim:0.02"] {
            for path in ["/photo.jpg", "/malformed.jpg"] {
                let reply = try await server.get(Self.plain(origin, path, options: options))
                #expect(reply.status == 200, "\(options) \(path): \(reply.status) \(reply.text.prefix(200))")
                let format = ImageFormat(sniffing: reply.body) ?? .jpeg
                let exif = EmbeddedMetadata.read(from: reply.body, format: format, iccProfile: nil).exif
                if EmbeddedMetadata.writableFormats.contains(format) {
                    #expect(exif.flatMap(ExifFixture.summary)?.orientation == (options.contains("ar:0") ? 6 : 1), "\(options) \(path) as \(format)")
                }
            }
        }
    }

    @Test("IMGPROXY_STRIP_METADATA=false, _KEEP_COPYRIGHT, _STRIP_COLOR_PROFILE=false set the defaults; a URL's sm:1 still strips")
    func metadataSettings() async throws {
        let read = try await ServerSettingsTests.load(environment: [
            "IMGPROXY_STRIP_METADATA": "false", "IMGPROXY_KEEP_COPYRIGHT": "false", "IMGPROXY_STRIP_COLOR_PROFILE": "false",
        ])
        #expect(!read.configuration.stripMetadata && !read.configuration.keepCopyright && !read.configuration.stripColorProfile)
        let origin = try Self.metadataOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.stripMetadata = false
            $0.stripColorProfile = false
            $0.keepCopyright = false
        }
        defer { server.cancel() }
        let kept = try Self.blocks(try await server.get(Self.plain(origin, "/photo.jpg", options: "w:120")), .jpeg)
        #expect(kept.exif != nil && kept.xmp != nil && kept.iccProfile != nil)
        let stripped = try Self.blocks(try await server.get(Self.plain(origin, "/photo.jpg", options: "w:120/sm:1/scp:1")), .jpeg)
        #expect(stripped.exif == nil && stripped.xmp == nil && stripped.iccProfile == nil, "kcr:0 from the server: nothing kept")
    }
}
