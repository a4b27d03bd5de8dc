import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// imgproxy's output settings (issue 32), each against a real server and origin on 127.0.0.1.
extension ServerTests {
    /// An origin with the fixtures these tests read, by name.
    static func fixtureOrigin() throws -> TestHTTPServer {
        try TestHTTPServer { request in
            let name = String(request.path.dropFirst())
            guard FileManager.default.fileExists(atPath: Fixtures.directory.appendingPathComponent(name).path) else { return .status(404) }
            return .ok(Fixtures.bytes(name))
        }
    }

    /// The size of `server`'s answer for `options` of `name` on `origin`, or its status and line.
    static func size(_ server: ServerHarness, _ origin: TestHTTPServer, _ name: String, _ options: String) async throws -> String {
        let reply = try await server.get("/unsafe/\(options)/plain/http://127.0.0.1:\(origin.port)/\(name)")
        guard reply.status == 200 else { return "\(reply.status) \(reply.text)" }
        let image = try ServerHarness.image(reply)
        return "\(image.width)x\(image.height)"
    }

    @Test("--max-result-dimension scales a larger result down to fit, padding and all; a URL's mrd may only lower it")
    func maximumResultDimension() async throws {
        let origin = try Self.fixtureOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.maximumResultDimension = 200
            $0.allowSecurityOptions = true
        }
        defer { server.cancel() }
        let rocket = "jpeg_small_base_rocket_640x427.jpg"
        do { let size = try await Self.size(server, origin, rocket, "rs:fit:0:0"); #expect(size == "200x133") }
        do { let size = try await Self.size(server, origin, rocket, "w:100"); #expect(size == "100x67") }
        do { let size = try await Self.size(server, origin, rocket, "w:300/pd:0:100"); #expect(size == "200x80") }   // 500×200 with 100 of padding each side, scaled whole
        do { let size = try await Self.size(server, origin, rocket, "w:300/mrd:50"); #expect(size == "50x33") }
        do { let size = try await Self.size(server, origin, rocket, "w:300/mrd:500"); #expect(size == "200x133") }
    }

    @Test("--auto-rotate (on): the EXIF orientation is applied unless the URL says ar:0; off, unless it says ar:1")
    func autoRotate() async throws {
        let origin = try Self.fixtureOrigin()
        defer { origin.stop() }
        let rotating = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { rotating.cancel() }
        let stored = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.autoRotate = false
        }
        defer { stored.cancel() }
        let aqua = "jpeg_exif6_aqua_2560x1600.jpg"   // stored 2560×1600, Orientation 6: upright 1600×2560
        do { let size = try await Self.size(rotating, origin, aqua, "rs:fit:200:200"); #expect(size == "125x200") }
        do { let size = try await Self.size(rotating, origin, aqua, "rs:fit:200:200/ar:0"); #expect(size == "200x125") }
        do { let size = try await Self.size(stored, origin, aqua, "rs:fit:200:200"); #expect(size == "200x125") }
        do { let size = try await Self.size(stored, origin, aqua, "rs:fit:200:200/ar:1"); #expect(size == "125x200") }
        // A crop, a processor-side resize, works on the stored pixels too.
        do { let size = try await Self.size(rotating, origin, aqua, "c:1000:500/rs:fit:200:200/ar:0"); #expect(size == "200x100") }
    }

    @Test(
        "--enforce-thumbnail (and eth:1) decodes a HEIC's embedded thumbnail whatever its size",
        .enabled(if: CIRun.runs(needingTrait: "HEIF", compiled: ImageDecoder.supportedFormats.contains(.heic)), "needs the HEIF trait: swift test --traits HEIF")
    )
    func enforceThumbnail() async throws {
        let origin = try Self.fixtureOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        let enforcing = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.enforceThumbnail = true
        }
        defer { enforcing.cancel() }
        let heic = "heic_rocket_320x214.heic"   // with a 96×64 thumbnail
        do { let size = try await Self.size(server, origin, heic, "w:200"); #expect(size == "200x134") }
        do { let size = try await Self.size(server, origin, heic, "w:200/eth:1"); #expect(size == "96x64") }
        do { let size = try await Self.size(enforcing, origin, heic, "w:200"); #expect(size == "96x64") }
        do { let size = try await Self.size(enforcing, origin, heic, "w:200/eth:0"); #expect(size == "200x134") }
    }

    @Test("--return-attachment makes attachments the default; att:0 still shows inline")
    func returnAttachment() async throws {
        let origin = try Self.fixtureOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.returnAttachment = true
        }
        defer { server.cancel() }
        let path = "/plain/http://127.0.0.1:\(origin.port)/jpeg_small_base_rocket_640x427.jpg"
        #expect(try await server.get("/unsafe/w:50" + path).header("content-disposition") == "attachment; filename=\"jpeg_small_base_rocket_640x427.jpg\"")
        #expect(try await server.get("/unsafe/w:50/att:0" + path).header("content-disposition") == "inline; filename=\"jpeg_small_base_rocket_640x427.jpg\"")
    }

    @Test("--arguments-separator and --presets-separator: URLs, presets and /info written with them")
    func separators() async throws {
        let origin = try Self.fixtureOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.argumentsSeparator = "~"
            $0.presetsSeparator = ";"
            $0.presets = "thumb=rs~fill~50~50;wide=w~120"
        }
        defer { server.cancel() }
        let rocket = "jpeg_small_base_rocket_640x427.jpg"
        do { let size = try await Self.size(server, origin, rocket, "rs~fit~100~100"); #expect(size == "100x67") }
        do { let size = try await Self.size(server, origin, rocket, "pr~thumb"); #expect(size == "50x50") }
        do { let size = try await Self.size(server, origin, rocket, "pr~wide"); #expect(size == "120x80") }
        #expect(try await Self.size(server, origin, rocket, "rs:fit:100:100").hasPrefix("400"))   // rs:fit:100:100 is no option now: it starts the source
        let info = try await server.get("/info/unsafe/s~1/plain/http://127.0.0.1:\(origin.port)/\(rocket)")
        #expect(info.status == 200 && info.text.contains("\"size\":"))
    }

    @Test("/info: --allowed-info-options, --info-presets, and --info-only-presets (which follows --only-presets unless set)")
    func infoRules() async throws {
        let origin = try Self.fixtureOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.allowedInfoOptions = ["size", "d"]
            $0.infoPresets = "colours=avg:1"
        }
        defer { server.cancel() }
        let presetsOnly = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.onlyPresets = true
            $0.presets = "thumb=w:50"
            $0.infoPresets = "colours=avg:1"
        }
        defer { presetsOnly.cancel() }
        let infoOpen = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.onlyPresets = true
            $0.presets = "thumb=w:50"
            $0.infoOnlyPresets = false
        }
        defer { infoOpen.cancel() }
        let source = "/plain/http://127.0.0.1:\(origin.port)/jpeg_small_base_rocket_640x427.jpg"

        #expect(try await server.get("/info/unsafe/s:1/d:1" + source).status == 200)
        let refused = try await server.get("/info/unsafe/th:1" + source)
        #expect(refused.status == 400 && refused.text.contains("not allowed"))
        let preset = try await server.get("/info/unsafe/pr:colours" + source)   // presets may use any option
        #expect(preset.status == 200 && preset.text.contains("\"average\""))
        let bare = try await presetsOnly.get("/info/unsafe/colours" + source)
        #expect(bare.status == 200 && bare.text.contains("\"average\""))
        #expect(try await presetsOnly.get("/info/unsafe/s:1" + source).status == 400)
        #expect(try await infoOpen.get("/info/unsafe/s:1" + source).status == 200)
        #expect(try await infoOpen.get("/unsafe/w:10" + source).status == 400)   // images still presets only
    }

    @Test("--skip-processing-formats serves those sources as they are, unless the URL asks for another format")
    func skipProcessingFormats() async throws {
        let origin = try Self.fixtureOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.skipProcessingFormats = [.png]
        }
        defer { server.cancel() }
        let logo = "/plain/http://127.0.0.1:\(origin.port)/png_rgba_logo_500x500.png"
        let skipped = try await server.get("/unsafe/w:50" + logo)
        #expect(skipped.body == Fixtures.logo && skipped.header("content-type") == "image/png")
        #expect(try ServerHarness.image(await server.get("/unsafe/w:50" + logo + "@jpg")).width == 50)
        do { let size = try await Self.size(server, origin, "jpeg_small_base_rocket_640x427.jpg", "w:50"); #expect(size == "50x33") }
    }

    @Test("--disable-shrink-on-load decodes at full size: the result is the full decode's, not DCT scaling's")
    func disableShrinkOnLoad() async throws {
        let origin = try Self.fixtureOrigin()
        defer { origin.stop() }
        let shrinking = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { shrinking.cancel() }
        let full = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.disableShrinkOnLoad = true
        }
        defer { full.cancel() }
        let path = "/unsafe/rs:fit:160:100/f:png/plain/http://127.0.0.1:\(origin.port)/jpeg_med_gray_pier_2560x1600.jpg"
        let reduced = try ServerHarness.image(await shrinking.get(path))
        let whole = try ServerHarness.image(await full.get(path))
        let reference = try Thumbnailer(resize: .fit(width: 160, height: 100))
            .referenceThumbnail(from: Fixtures.bytes("jpeg_med_gray_pier_2560x1600.jpg"), size: PixelSize(width: 160, height: 100))
        #expect(whole.width == 160 && reduced.width == 160)
        #expect(ImageComparison.psnr(whole, reference) > ImageComparison.psnr(reduced, reference))
        #expect(ImageComparison.psnr(whole, reference) > 45)
    }
}
