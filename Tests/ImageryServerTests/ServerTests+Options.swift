import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing

extension ServerTests {
    /// A 100×80 white PNG with a 40×20 red block at (10, 10): a border to trim.
    static let framed: [UInt8] = {
        var bitmap = Bitmap(width: 100, height: 80, filledWith: .white)
        for y in 10..<30 {
            for x in 10..<50 { bitmap.pixels.replaceSubrange((y * 400 + x * 4)..<(y * 400 + x * 4 + 4), with: [255, 0, 0, 255]) }
        }
        return try! ImageEncoder(format: .png).encode(bitmap)
    }()

    @Test("The drop-in options change real pixels and headers: min sizes, zoom, offsets, trim, exar, watermark, raw, skp, filename, security limits")
    func dropInOptions() async throws {
        let origin = try TestHTTPServer { request in
            switch request.path {
            case "/rocket.jpg": .ok(Fixtures.rocket)
            case "/framed.png": .ok(Self.framed)
            default: .status(404)
            }
        }
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.allowSecurityOptions = true
            $0.watermarkData = Data(Fixtures.logo).base64EncodedString()
            $0.watermarkOpacity = 0.8
        }
        defer { server.cancel() }
        func get(_ options: String, _ path: String = "/rocket.jpg") async throws -> ServerHarness.Reply {
            try await server.get(Self.plain(origin, path, options: options))
        }
        func image(_ options: String, _ path: String = "/rocket.jpg") async throws -> Bitmap {
            let reply = try await get(options, path)
            try #require(reply.status == 200, "\(options): \(reply.text)")
            return try ServerHarness.image(reply)
        }
        func size(_ options: String, _ path: String = "/rocket.jpg") async throws -> String {
            let bitmap = try await image(options, path)
            return "\(bitmap.width)x\(bitmap.height)"
        }

        // The source is 640×427. min-width and min-height raise the scale; zoom multiplies it.
        #expect(try await size("w:100/mw:200") == "200x133")
        #expect(try await size("h:50/min-height:100") == "150x100")
        #expect(try await size("z:0.5") == "320x214")
        #expect(try await size("w:100/zoom:2") == "200x133")
        #expect(try await size("z:2") == "640x427")                        // not enlarged without el
        #expect(try await size("rs:fill:100:100/z:0.5:1") == "50x100")      // two factors, the box zoomed too
        // extend_aspect_ratio pads to the box's ratio, not its size, transparent without bg.
        let squared = try await image("rs:fit:100:100/exar:1/f:png")
        #expect(squared.width == 100 && squared.height == 100 && squared.pixel(x: 50, y: 0).alpha == 0 && squared.pixel(x: 50, y: 50).alpha == 255)
        // A gravity offset moves the window: 20 px right of the west edge.
        let west = try await image("rs:fill:100:100/g:we/f:png"), moved = try await image("rs:fill:100:100/g:we:20:0/f:png")
        let shifted = (0..<80).map { x in Self.distance(moved.pixel(x: x, y: 50), west.pixel(x: x + 20, y: 50)) }.max() ?? 255
        #expect(shifted <= 6, "offset window differs by \(shifted)")
        #expect(ImageComparison.psnr(west, moved) < 30)

        // trim cuts the white border; its equal options cut the same from both sides.
        #expect(try await size("t:10/f:png", "/framed.png") == "40x20")
        let trimmed = try await image("trim:10/f:png", "/framed.png")
        #expect(trimmed.pixel(x: 0, y: 0) == RGBA(red: 255, green: 0, blue: 0))
        #expect(try await size("t:10:ffffff:1:1/f:png", "/framed.png") == "80x60")
        #expect(try await size("t:10:000000/f:png", "/framed.png") == "100x80")   // no black border to cut

        // The watermark is drawn where asked (a fifth of the width here), tiled with re, and nowhere without wm.
        let plain = try await image("w:200/f:png"), marked = try await image("w:200/wm:1:nowe:0:0:0.2/f:png")
        let tiled = try await image("w:200/wm:1:re:0:0:0.2/f:png")
        #expect(Self.distance(plain, marked, x: 0..<40, y: 0..<40) > 40)
        #expect(Self.distance(plain, marked, x: 41..<200, y: 41..<133) == 0)
        #expect(Self.distance(plain, tiled, x: 160..<200, y: 80..<120) > 40)

        // raw and skip_processing serve the source's own bytes.
        let raw = try await get("raw:1")
        ServerHarness.expectImage(raw, .jpeg)
        #expect(raw.body == Fixtures.rocket)
        #expect(try await get("w:100/skp:jpg").body == Fixtures.rocket)
        #expect(try await size("w:100/skp:png") == "100x67")

        // Content-Disposition: the source's name by default, or filename, inline or as an attachment.
        #expect(try await get("w:100").header("content-disposition") == "inline; filename=\"rocket.jpg\"")
        #expect(try await get("w:100/fn:cat/att:1/f:png").header("content-disposition") == "attachment; filename=\"cat.png\"")
        #expect(try await get("w:90/fn:Y2F0IPCfkIg:1").header("content-disposition") == "inline; filename=\"cat .jpg\"; filename*=UTF-8''cat%20%F0%9F%90%88.jpg")

        // Security options only lower the limits, each with its own line.
        let tooManyPixels = try await get("w:100/msr:0.1")
        #expect(tooManyPixels.status == 422 && tooManyPixels.text.contains("pixel limit"))
        let tooBig = try await get("w:100/msfs:100")
        #expect(tooBig.status == 422 && tooBig.text.contains("100-byte limit"))
        // A result past max_result_dimension is scaled down to fit, as imgproxy does, not refused.
        let tooWide = try await get("w:100/mrd:50")
        #expect(try tooWide.status == 200 && ServerHarness.image(tooWide).width == 50)
        #expect(try await size("w:100/msr:1/mrd:100") == "100x67")
    }

    @Test("Presets from the settings: default applies to all, pr and bare names; allowed options; settings are in the cache key")
    func serverPresets() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let presets = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.presets = "default=f:png,tiny=w:20,wide=w:60"
            $0.allowedProcessingOptions = ["w", "pr"]
        }
        defer { presets.cancel() }
        let tiny = try await presets.get(Self.plain(origin, "/rocket.jpg", options: "pr:tiny"))
        #expect(ServerHarness.expectImage(tiny, .png)?.width == 20)
        let refused = try await presets.get(Self.plain(origin, "/rocket.jpg", options: "bl:2"))
        #expect(refused.status == 400 && refused.text == "option bl: not allowed here\n")
        let unknown = try await presets.get(Self.plain(origin, "/rocket.jpg", options: "pr:huge"))
        #expect(unknown.status == 400 && unknown.text == "unknown preset: huge\n")

        let only = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.presets = "tiny=w:20,wide=w:60"
            $0.onlyPresets = true
        }
        defer { only.cancel() }
        let bare = try await only.get("/unsafe/wide/plain/http://127.0.0.1:\(origin.port)/rocket.jpg")
        #expect(try bare.status == 200 && ServerHarness.image(bare).width == 60)
        #expect(try await only.get(Self.plain(origin, "/rocket.jpg", options: "w:10")).status == 400)

        // Two servers that differ in a preset never share a cached answer.
        var first = ServerConfiguration(), second = ServerConfiguration()
        first.presets = "tiny=w:20"
        second.presets = "tiny=w:30"
        #expect(try ServerSettings.settingsDigest(of: first, resolved: first.resolve()) != ServerSettings.settingsDigest(of: second, resolved: second.resolve()))
    }

    @Test("A bad watermark, preset file or format quality stops the start with a line that names it")
    func badProcessingSettings() async throws {
        for configure in [
            { (configuration: inout ServerConfiguration) in configuration.watermarkData = Data("not an image".utf8).base64EncodedString() },
            { (configuration: inout ServerConfiguration) in configuration.watermarkPath = "/nonexistent/imagery-watermark.png" },
            { (configuration: inout ServerConfiguration) in configuration.presetsPath = "/nonexistent/imagery-presets" },
            { (configuration: inout ServerConfiguration) in configuration.formatQuality = ["jpeg=101"] },
        ] {
            var configuration = ServerConfiguration()
            configure(&configuration)
            await #expect(throws: ServerSetupError.self) {
                try await configuration.loadImages()
                _ = try ServerApplication(configuration: configuration)
            }
        }
    }

    /// The largest channel difference between `a` and `b` over a rectangle.
    static func distance(_ a: Bitmap, _ b: Bitmap, x columns: Range<Int>, y rows: Range<Int>) -> Int {
        rows.flatMap { y in columns.map { x in distance(a.pixel(x: x, y: y), b.pixel(x: x, y: y)) } }.max() ?? 0
    }

    static func distance(_ a: RGBA, _ b: RGBA) -> Int {
        max(abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)), abs(Int(a.alpha) - Int(b.alpha)))
    }
}

extension ServerTests {
    @Test("Client hints fill in dpr and width where the URL leaves them, keyed apart, with Vary and Accept-CH; off by default")
    func clientHints() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let hinted = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.enableClientHints = true
        }
        defer { hinted.cancel() }
        let plain = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { plain.cancel() }
        let path = Self.plain(origin, "/rocket.jpg", options: "q:80")

        let physical = try await hinted.get(path, headers: [("DPR", "2"), ("Width", "300")])
        #expect(try ServerHarness.image(physical).width == 300)   // 150 CSS pixels at dpr 2
        #expect(physical.header("vary")?.contains("Sec-CH-Width") == true && physical.header("accept-ch")?.contains("DPR") == true)
        #expect(try ServerHarness.image(await hinted.get(path, headers: [("Sec-CH-Width", "200")])).width == 200)
        #expect(try ServerHarness.image(await hinted.get(path)).width == 640)   // no hints, its own key
        let urlWidth = Self.plain(origin, "/rocket.jpg", options: "w:100")
        #expect(try ServerHarness.image(await hinted.get(urlWidth, headers: [("DPR", "2"), ("Width", "500")])).width == 200)
        #expect(try ServerHarness.image(await hinted.get(path, headers: [("Width", "banana")])).width == 640)   // unreadable hints are ignored

        let ignored = try await plain.get(path, headers: [("DPR", "2"), ("Width", "300")])
        #expect(try ServerHarness.image(ignored).width == 640 && ignored.header("accept-ch") == nil)
    }

    @Test("Preferred formats keep a listed source format, else take the first that keeps alpha; Accept still wins")
    func preferredFormats() async throws {
        let origin = try TestHTTPServer { request in
            switch request.path {
            case "/rocket.jpg": .ok(Fixtures.rocket)
            case "/framed.png": .ok(Self.framed)   // opaque
            case "/alpha.png": .ok(Fixtures.bytes("png_pal8_trns_debianlogo_256x256.png"))
            default: .status(404)
            }
        }
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.negotiation.preferredFormats = [.jpeg, .png]
        }
        defer { server.cancel() }
        let plainServer = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { plainServer.cancel() }
        let logo = Self.plain(origin, "/framed.png", options: "w:50"), rocket = Self.plain(origin, "/rocket.jpg", options: "w:50")
        ServerHarness.expectImage(try await server.get(logo), .png, "the source's own, listed")
        ServerHarness.expectImage(try await server.get(rocket), .jpeg)
        let alpha = Self.plain(origin, "/alpha.png", options: "w:50")
        ServerHarness.expectImage(try await server.get(alpha), .png, "JPEG would lose the alpha")
        ServerHarness.expectImage(try await plainServer.get(logo), .jpeg, "Imagery's default: JPEG when opaque")
        if ImageEncoder.supportedFormats.contains(.webp) {
            ServerHarness.expectImage(try await server.get(logo, headers: [("Accept", "image/webp")]), .webp)
        }
    }
}
