import Imagery
import ImageryCodecs
import ImageryImgproxy
import ImageryServer
import ImageryTestSupport
import Testing

/// Animated sources through the server: kept animated in GIF or WebP, never AVIF, within the
/// frame limits; a bomb is 422 before it is decoded.
extension ServerTests {
    static func animationOrigin() throws -> TestHTTPServer {
        let gif = Fixtures.bytes("gif_anim_rocket_8f_160x107.gif"), bomb = Fixtures.bytes("gif_anim_bomb_2000x2000_3000f.gif")
        return try TestHTTPServer { request in
            switch request.path {
            case "/anim.gif": .ok(gif)
            case "/bomb.gif": .ok(bomb)
            default: .status(404)
            }
        }
    }

    static func frames(_ reply: ServerHarness.Reply) throws -> AnimatedImage? {
        try ImageDecoder().decodeAnimation(reply.body, resize: nil, allowsUpscaling: false, options: DecodingOptions())
    }

    @Test("An animated GIF stays animated: GIF for a plain client, every frame resized and processed; a still format takes the first frame")
    func animatedGIFStaysAnimated() async throws {
        let origin = try Self.animationOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        let gif = try await server.get(Self.plain(origin, "/anim.gif", options: "rs:fill:64:64/circle:1"), headers: [("Accept", "*/*")])
        ServerHarness.expectImage(gif, .gif)
        let animation = try #require(try Self.frames(gif))
        #expect(animation.frames.count == 8 && animation.loopCount == 0)
        #expect(animation.frames.allSatisfy { $0.image.width == 64 && $0.image.pixel(x: 0, y: 0).alpha == 0 })
        #expect(animation.frames.allSatisfy { $0.duration == .milliseconds(80) })

        let png = try await server.get(Self.plain(origin, "/anim.gif", options: "rs:fit:64:64/f:png"))
        #expect(ServerHarness.expectImage(png, .png)?.width == 64)
        let limited = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.maximumAnimationFrames = 3
        }
        defer { limited.cancel() }
        let three = try await limited.get(Self.plain(origin, "/anim.gif", options: "rs:fit:64:64/f:gif"))
        #expect(try Self.frames(three)?.frames.count == 3)
    }

    @Test(
        "An animation is never AVIF: a client that takes AVIF gets animated WebP",
        .enabled(if: CIRun.runs(needingTrait: "AVIF", compiled: ImageEncoder.supportedFormats.isSuperset(of: [.avif, .webp])), "needs the AVIF and WebP traits: swift test --traits AllFormats")
    )
    func animationIsNeverAVIF() async throws {
        let origin = try Self.animationOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.negotiation.enforceAVIF = true
        }
        defer { server.cancel() }
        let browser = [("Accept", "image/avif,image/webp,*/*")]
        for options in ["rs:fit:80:80", "rs:fit:80:80/f:gif", "rs:fit:80:80/f:webp"] {
            let reply = try await server.get(Self.plain(origin, "/anim.gif", options: options), headers: browser)
            ServerHarness.expectImage(reply, .webp, "\(options)")
            #expect(reply.header("vary") == "Accept", "\(options)")
            #expect(try Self.frames(reply)?.frames.count == 8, "\(options)")
        }
        // A URL that asks for AVIF gets the first frame as a still AVIF.
        let still = try await server.get(Self.plain(origin, "/anim.gif", options: "rs:fit:80:80/f:avif"))
        ServerHarness.expectImage(still, .avif)
    }

    @Test("An animation bomb (3,000 1x1 frames on a 2000x2000 screen) is 422 in any format, refused from its header")
    func animationBombIsRefused() async throws {
        let origin = try Self.animationOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        let reply = try await server.get(Self.plain(origin, "/bomb.gif", options: "rs:fit:100:100/f:gif"))
        #expect(reply.status == 422, "\(reply.text)")
        let still = try await server.get(Self.plain(origin, "/bomb.gif", options: "rs:fit:100:100/f:png"))
        #expect(still.status == 422, "\(still.text)")
        let single = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.maximumAnimationFrames = 1   // imgproxy's default: every animation served as its first frame
        }
        defer { single.cancel() }
        let first = try await single.get(Self.plain(origin, "/bomb.gif", options: "rs:fit:100:100/f:gif"))
        ServerHarness.expectImage(first, .gif)
        #expect(try Self.frames(first) == nil)
    }
}
