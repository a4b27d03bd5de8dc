import Imagery
import ImageryCodecs
import ImageryImgproxy
import ImageryServer
import ImageryTestSupport
import Testing

/// The formats a response is written in, and the formats a source may be in.
extension ServerTests {
    @Test("Accept decides WebP only when the build writes it", .enabled(if: CIRun.runs(needingTrait: "WebP", compiled: ImageEncoder.supportedFormats.contains(.webp)), "needs the WebP trait: swift test --traits WebP"))
    func acceptNegotiatesWebP() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        let webp = try await server.get(Self.plain(origin, "/rocket.jpg"), headers: [("Accept", "image/webp,*/*")])
        ServerHarness.expectImage(webp, .webp)
        #expect(webp.header("vary") == "Accept")
        let refused = try await server.get(Self.plain(origin, "/rocket.jpg"), headers: [("Accept", "image/webp;q=0,*/*")])
        ServerHarness.expectImage(refused, .jpeg)
    }

    @Test(
        "Accept chooses AVIF, then WebP, then JPEG; each choice can be switched off, and enforced over the URL's format",
        .enabled(if: CIRun.runs(needingTrait: "AVIF", compiled: ImageEncoder.supportedFormats.isSuperset(of: [.avif, .webp])), "needs the AVIF and WebP traits: swift test --traits AllFormats")
    )
    func acceptNegotiatesAVIF() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let browser = [("Accept", "image/avif,image/webp,*/*")]
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        let avif = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:200"), headers: browser)
        #expect(ServerHarness.expectImage(avif, .avif)?.width == 200)
        #expect(avif.header("vary") == "Accept")
        let named = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:200/f:jpg"), headers: browser)
        ServerHarness.expectImage(named, .jpeg)
        #expect(named.header("vary") == nil)
        let asked = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:200/f:avif"))
        ServerHarness.expectImage(asked, .avif)

        let noAVIF = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.negotiation.autoAVIF = false
        }
        defer { noAVIF.cancel() }
        let webp = try await noAVIF.get(Self.plain(origin, "/rocket.jpg", options: "w:200"), headers: browser)
        ServerHarness.expectImage(webp, .webp)

        let enforcing = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.negotiation.enforceAVIF = true
        }
        defer { enforcing.cancel() }
        let enforced = try await enforcing.get(Self.plain(origin, "/rocket.jpg", options: "w:200/f:jpg"), headers: browser)
        ServerHarness.expectImage(enforced, .avif)
        #expect(enforced.header("vary") == "Accept")
        let older = try await enforcing.get(Self.plain(origin, "/rocket.jpg", options: "w:200/f:jpg"), headers: [("Accept", "image/webp,*/*")])
        ServerHarness.expectImage(older, .jpeg)
        #expect(older.header("vary") == "Accept")
    }

    @Test(
        "HEIC (a grid too), AVIF and JPEG XL sources are served; a HEIC or AVIF claiming 65535×65535 and HEIF grids of absurd size are 422, refused before decoding",
        .enabled(if: CIRun.runs(needingTrait: "AllFormats", compiled: ImageDecoder.supportedFormats.isSuperset(of: [.heic, .avif, .jxl])), "needs the format traits: swift test --traits AllFormats")
    )
    func modernSources() async throws {
        let heic = Fixtures.bytes("heic_rocket_320x214.heic"), avif = Fixtures.bytes("avif_rocket_320x214.avif")
        let origin = try TestHTTPServer { request in
            switch request.path {
            case "/photo.heic": .ok(heic)
            case "/photo.avif": .ok(avif)
            case "/photo.jxl": .ok(Fixtures.bytes("jxl_rocket_320x214.jxl"))
            case "/bomb.heic": .ok(Fixtures.claimingSize(65535, 65535, in: heic))
            case "/bomb.avif": .ok(Fixtures.claimingSize(65535, 65535, in: avif))
            case "/grid.heic": .ok(Fixtures.bytes("heic_grid_2x2_rocket_640x428.heic"))
            case "/grid-bomb.heic": .ok(Fixtures.bytes("heic_grid_150x100_claims_32000x32100.heic"))
            case "/grid-absurd.heic": .ok(Fixtures.bytes("heic_grid_255x255_claims_81600x54570.heic"))
            default: .status(404)
            }
        }
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        for name in ["/photo.heic", "/photo.avif", "/photo.jxl", "/grid.heic"] {
            let reply = try await server.get(Self.plain(origin, name, options: "rs:fit:160:160/f:png"))
            #expect(reply.status == 200, "\(name)")
            let image = try ServerHarness.image(reply)
            #expect(image.width == 160 && image.height == 107, "\(name)")
        }
        for name in ["/bomb.heic", "/bomb.avif", "/grid-bomb.heic", "/grid-absurd.heic"] {
            let reply = try await server.get(Self.plain(origin, name))
            #expect(reply.status == 422, "\(name): \(reply.text)")
        }
    }
}
