import Imagery
import ImageryCodecs
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// HEIC and JPEG XL answers, and JPEG XL negotiated as imgproxy's `IMGPROXY_AUTO_JXL` and
/// `IMGPROXY_ENFORCE_JXL` do: off by default, first when on.
extension ServerTests {
    static let writesHEICAndJXL = CIRun.runs(needingTrait: "AllFormats", compiled: ImageEncoder.supportedFormats.isSuperset(of: [.heic, .jxl, .avif, .webp]))
    /// Safari 17's `Accept` for images: JPEG XL, AVIF and WebP.
    static let safari = [("Accept", "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5")]

    @Test("@heic and @jxl are written as image/heic and image/jxl at the URL's size and quality, and autoquality searches them", .enabled(if: writesHEICAndJXL, "needs the format traits: swift test --traits AllFormats"))
    func heicAndJPEGXLOut() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.enableDebugHeaders = true
        }
        defer { server.cancel() }
        for format in [ImageFormat.heic, .jxl] {
            let high = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:200/q:90") + "@" + format.imgproxyExtension)
            #expect(ServerHarness.expectImage(high, format)?.width == 200)
            #expect(high.header("x-imagery-quality") == "90")
            let low = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:200/q:30/f:\(format.imgproxyExtension)"))
            ServerHarness.expectImage(low, format)
            #expect(low.body.count < high.body.count, "\(format): q30 \(low.body.count) bytes, q90 \(high.body.count)")
            let searched = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:200/aq:dssim:0.02:40:90") + "@" + format.imgproxyExtension)
            ServerHarness.expectImage(searched, format)
            let quality = try #require(searched.header("x-imagery-quality").flatMap(Int.init))
            #expect((40...90).contains(quality))
            let same = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:200/q:\(quality)") + "@" + format.imgproxyExtension)
            #expect(same.body == searched.body, "\(format): aq's choice, q\(quality), is that quality's encode")
        }
        // A transparent source keeps its alpha in both.
        for format in [ImageFormat.heic, .jxl] {
            let logo = try await server.get(Self.plain(origin, "/alpha.png", options: "w:128") + "@" + format.imgproxyExtension)
            #expect(ServerHarness.expectImage(logo, format)?.hasTransparency == true)
        }
    }

    @Test("JPEG XL is negotiated only with --auto-jxl (off by default), before AVIF, with Vary: Accept; --enforce-jxl replaces the URL's format for its class; --jxl-effort reaches libjxl", .enabled(if: writesHEICAndJXL, "needs the format traits: swift test --traits AllFormats"))
    func jpegXLNegotiation() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let plain = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { plain.cancel() }
        ServerHarness.expectImage(try await plain.get(Self.plain(origin, "/rocket.jpg", options: "w:200"), headers: Self.safari), .avif)

        let auto = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.negotiation.autoJXL = true
        }
        defer { auto.cancel() }
        let jxl = try await auto.get(Self.plain(origin, "/rocket.jpg", options: "w:200"), headers: Self.safari)
        #expect(ServerHarness.expectImage(jxl, .jxl)?.width == 200)
        #expect(jxl.header("vary") == "Accept")
        ServerHarness.expectImage(try await auto.get(Self.plain(origin, "/rocket.jpg", options: "w:200"), headers: [("Accept", "image/avif,image/webp,*/*")]), .avif)
        ServerHarness.expectImage(try await auto.get(Self.plain(origin, "/rocket.jpg", options: "w:200/f:png"), headers: Self.safari), .png)
        // The JPEG XL class is a key of its own: the AVIF class's answer is not served to it.
        let again = try await auto.get(Self.plain(origin, "/rocket.jpg", options: "w:200"), headers: Self.safari)
        #expect(again.body == jxl.body)

        let enforcing = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.negotiation.enforceJXL = true
        }
        defer { enforcing.cancel() }
        let enforced = try await enforcing.get(Self.plain(origin, "/rocket.jpg", options: "w:200/f:png"), headers: Self.safari)
        ServerHarness.expectImage(enforced, .jxl)
        #expect(enforced.header("vary") == "Accept")
        ServerHarness.expectImage(try await enforcing.get(Self.plain(origin, "/rocket.jpg", options: "w:200/f:png"), headers: [("Accept", "image/avif,*/*")]), .png)

        let loaded = try await ServerSettingsTests.load(environment: ["IMGPROXY_JXL_EFFORT": "8", "IMGPROXY_AUTO_JXL": "true"]).configuration
        #expect(loaded.negotiation.autoJXL)
        let effortful = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.encoding = loaded.encoding
        }
        defer { effortful.cancel() }
        let path = Self.plain(origin, "/rocket.jpg", options: "w:200") + "@jxl"
        let slow = try await effortful.get(path), quick = try await plain.get(path)
        ServerHarness.expectImage(slow, .jxl)
        #expect(slow.body != quick.body)
    }

    @Test("f:best for a client that takes JPEG XL, on a server that negotiates it, competes JPEG XL too and is never larger than negotiation's answer", .enabled(if: writesHEICAndJXL, "needs the format traits: swift test --traits AllFormats"))
    func bestWithJPEGXL() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.negotiation.autoJXL = true
        }
        defer { server.cancel() }
        let negotiated = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:300"), headers: Self.safari)
        ServerHarness.expectImage(negotiated, .jxl)
        let best = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:300/f:best"), headers: Self.safari)
        #expect(best.status == 200 && best.body.count <= negotiated.body.count)
        #expect(best.header("vary") == "Accept")
        #expect(server.metric("imagery_image_encodes_sum") >= 5, "the negotiated answer, then JPEG, WebP, AVIF and JPEG XL each encoded")
    }
}
