import Foundation
import Imagery
import ImageryCodecs
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// imgproxy Pro's autoquality settings and `format:best`, given away: the server's settings fill
/// in what `aq` leaves unsaid, and `f:best` answers the smallest format no worse than
/// negotiation's own answer.
extension ServerTests {
    /// A server whose autoquality settings come from `environment`, as an operator's would.
    static func autoQualityServer(_ environment: [String: String]) async throws -> ServerHarness {
        let loaded = try await ServerSettingsTests.load(environment: environment).configuration
        return try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.autoQualityMethod = loaded.autoQualityMethod
            $0.autoQualityTarget = loaded.autoQualityTarget
            $0.autoQualityMinimum = loaded.autoQualityMinimum
            $0.autoQualityMaximum = loaded.autoQualityMaximum
            $0.autoQualityFormatMinimum = loaded.autoQualityFormatMinimum
            $0.autoQualityFormatMaximum = loaded.autoQualityFormatMaximum
            $0.autoQualityAllowedError = loaded.autoQualityAllowedError
            $0.autoQualityMaximumResolution = loaded.autoQualityMaximumResolution
        }
    }

    @Test("IMGPROXY_AUTOQUALITY_* give every image autoquality and fill what aq leaves unsaid: method, target, range, per-format range, resolution limit")
    func autoQualitySettings() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let plain = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { plain.cancel() }
        func body(_ server: ServerHarness, _ options: String) async throws -> [UInt8] {
            let reply = try await server.get(Self.plain(origin, "/rocket.jpg", options: options))
            #expect(reply.status == 200, "\(options): \(reply.text.prefix(200))")
            return reply.body
        }
        let fixed = try await body(plain, "w:600")

        // A method makes every image searched, with the server's target and range.
        let dssim = try await Self.autoQualityServer([
            "IMGPROXY_AUTOQUALITY_METHOD": "dssim", "IMGPROXY_AUTOQUALITY_TARGET": "0.05", "IMGPROXY_AUTOQUALITY_MIN": "10", "IMGPROXY_AUTOQUALITY_MAX": "95",
        ])
        defer { dssim.cancel() }
        let searched = try await body(dssim, "w:600")
        #expect(searched == (try await body(plain, "w:600/aq:dssim:0.05:10:95:0.002")), "the server's settings are the URL's")
        #expect(searched.count < fixed.count * 3 / 4, "\(searched.count) against \(fixed.count) at q80")
        // A URL's aq still wins, argument by argument.
        #expect(try await body(dssim, "w:600/aq:dssim:0.01") == (try await body(plain, "w:600/aq:dssim:0.01:10:95:0.002")))
        #expect(try await body(dssim, "w:600/aq:none") == fixed)

        // A per-format maximum comes between a URL's range and the plain one: a size target no
        // image misses chooses the highest quality allowed.
        let capped = try await Self.autoQualityServer([
            "IMGPROXY_AUTOQUALITY_METHOD": "size", "IMGPROXY_AUTOQUALITY_TARGET": "100000000", "IMGPROXY_AUTOQUALITY_MIN": "10",
            "IMGPROXY_AUTOQUALITY_FORMAT_MAX": "jpeg=63",
        ])
        defer { capped.cancel() }
        #expect(try await body(capped, "w:600") == (try await body(plain, "w:600/q:63")))
        #expect(try await body(capped, "w:600/aq:size:100000000:10:70") == (try await body(plain, "w:600/q:70")))

        // Above the resolution limit, the fixed quality.
        let limited = try await Self.autoQualityServer([
            "IMGPROXY_AUTOQUALITY_METHOD": "size", "IMGPROXY_AUTOQUALITY_TARGET": "1000", "IMGPROXY_AUTOQUALITY_MAX_RESOLUTION": "0.1",
        ])
        defer { limited.cancel() }
        #expect(try await body(limited, "w:600") == fixed, "600x400 is over 0.1 MP")
        #expect(try await body(limited, "w:200").count <= (try await body(plain, "w:200")).count)

        // Each still's encodes are counted.
        let encodes = dssim.metric("imagery_image_encodes_count")
        #expect(encodes >= 3, "\(encodes) images counted")
        #expect(dssim.metric("imagery_image_encodes_sum") > encodes, "a search takes more than one encode an image")
    }

    @Test("Autoquality settings that cannot be searched with, and imgproxy's neural networks, are refused by name", arguments: [
        (["IMGPROXY_AUTOQUALITY_METHOD": "size"], "--autoquality-target", "a size target must be a whole number of bytes"),
        (["IMGPROXY_AUTOQUALITY_MIN": "90", "IMGPROXY_AUTOQUALITY_MAX": "80"], "--autoquality-min", "the minimum quality 90 is above the maximum 80"),
        (["IMGPROXY_AUTOQUALITY_FORMAT_MIN": "jpeg=0"], "--autoquality-format-min", "is not format=quality"),
        (["IMGPROXY_AUTOQUALITY_METHOD": "psnr"], "IMGPROXY_AUTOQUALITY_METHOD", "must be none, size, dssim or ml"),
        (["IMGPROXY_AUTOQUALITY_JPEG_NET": "/networks/autoquality-jpeg.onnx"], "IMGPROXY_AUTOQUALITY_JPEG_NET", "runs no neural network models"),
        (["IMAGERY_ML_NUM_STREAMS": "2"], "IMAGERY_ML_NUM_STREAMS", "aq:ml searches as dssim"),
    ] as [([String: String], String, String)])
    func autoQualityRefusals(environment: [String: String], setting: String, reason: String) async throws {
        let error = await ServerSettingsTests.refusal(environment: environment)
        #expect(error?.setting == setting, "\(String(describing: error))")
        #expect(error?.reason.contains(reason) == true, "\(String(describing: error))")
    }

    @Test("f:best answers the smallest candidate no worse than negotiation's own answer, by DSSIM against the processed image, with Vary: Accept; again, from the cache", arguments: [
        ("/rocket.jpg", "w:400"), ("/logo.png", "w:300/bg:ffffff"), ("/logo.png", "w:300"), ("/alpha.png", "w:200"),
    ])
    func bestFormat(path: String, options: String) async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        // The processed image itself, losslessly, to measure each answer against.
        let exact = try ServerHarness.image(try await server.get(Self.plain(origin, path, options: options + "/f:png")))
        let reference = StructuralSimilarity.Reference(exact)
        for accept in ["image/avif,image/webp,*/*", "image/webp,*/*", "*/*"] {
            let headers = [("Accept", accept)]
            let negotiated = try await server.get(Self.plain(origin, path, options: options), headers: headers)
            let best = try await server.get(Self.plain(origin, path, options: options + "/f:best"), headers: headers)
            #expect(negotiated.status == 200 && best.status == 200, "\(best.text.prefix(200))")
            #expect(best.header("Vary") == "Accept")
            #expect(best.body.count <= negotiated.body.count, "\(path) \(accept): \(best.header("Content-Type") ?? "") \(best.body.count) against \(negotiated.header("Content-Type") ?? "") \(negotiated.body.count)")
            let bestDSSIM = reference.dssim(try ServerHarness.image(best)), negotiatedDSSIM = reference.dssim(try ServerHarness.image(negotiated))
            #expect(bestDSSIM <= negotiatedDSSIM + 1e-6, "\(path) \(accept): DSSIM \(bestDSSIM) against \(negotiatedDSSIM)")
            let candidates = ServerConfiguration().negotiation.bestCandidates(accepted: server.server.configuration.negotiation.accepted(accept), hasTransparency: true)
                + ServerConfiguration().negotiation.bestCandidates(accepted: server.server.configuration.negotiation.accepted(accept), hasTransparency: false)
            #expect(candidates.map(\.mimeType).contains(best.header("Content-Type") ?? ""), "\(best.header("Content-Type") ?? "")")
            // The same URL and client class again: the stored answer.
            let again = try await server.get(Self.plain(origin, path, options: options + "/f:best"), headers: headers)
            #expect(again.body == best.body)
        }
        #expect(server.metric(#"imagery_response_hits_total{tier="memory"}"#) >= 3)
    }

    /// A flat drawing, 400 x 300: four rectangles of four colours, no edge blended.
    static func drawing() throws -> [UInt8] {
        let colours: [RGBA] = [RGBA(red: 230, green: 57, blue: 70), RGBA(red: 241, green: 250, blue: 238), RGBA(red: 69, green: 123, blue: 157), RGBA(red: 29, green: 53, blue: 87)]
        var pixels: [UInt8] = []
        for y in 0..<300 {
            for x in 0..<400 {
                let colour = colours[(x < 200 ? 0 : 1) + (y < 150 ? 0 : 2)]
                pixels += [colour.red, colour.green, colour.blue, 255]
            }
        }
        return try ImageEncoder(format: .png).encode(Bitmap(width: 400, height: 300, pixels: pixels))
    }

    @Test("f:best on a flat drawing answers it losslessly, smaller than the lossy answer")
    func bestFormatLossless() async throws {
        let drawing = try Self.drawing()
        let origin = try TestHTTPServer { request in request.path == "/drawing.png" ? .ok(drawing) : .status(404) }
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        let lossy = try await server.get(Self.plain(origin, "/drawing.png", options: "w:400/f:jpg"))
        let best = try await server.get(Self.plain(origin, "/drawing.png", options: "w:400/f:best"))
        #expect(best.status == 200 && best.body.count < lossy.body.count, "\(best.body.count) against JPEG's \(lossy.body.count)")
        let exact = try ServerHarness.image(try await server.get(Self.plain(origin, "/drawing.png", options: "w:400/f:png")))
        #expect(StructuralSimilarity.Reference(exact).dssim(try ServerHarness.image(best)) == 0, "\(best.header("Content-Type") ?? "")")
    }

    @Test("Measuring DSSIM that could never have room under the budget is skipped, as past autoquality's resolution limit: the image goes out at its fixed quality, in negotiation's format")
    func measuringPastTheCeiling() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        // 64 MiB for images: no piece of work may take more than about 15 MP's worth. A 1.3 MP
        // JPEG's encoder fits that many times over; measuring its DSSIM (a float reference, and
        // each candidate decoded and filtered) does not.
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.enableDebugHeaders = true
            $0.maximumMemory = 64 << 20
            ($0.processMemory, $0.responseCacheBytes, $0.imageCacheBytes) = (0, 0, 0)
        }
        defer { server.cancel() }
        let enlarged = "rs:fit:1400:1400:1"

        for options in ["\(enlarged)/aq:dssim:0.05:10:40", "\(enlarged)/f:best"] {
            let reply = try await server.get(Self.plain(origin, "/rocket.jpg", options: options))
            // A search would have chosen a quality in 10...40, and f:best maybe another format.
            #expect(reply.status == 200 && reply.header("x-imagery-quality") == "80", "\(options): \(reply.status) \(reply.text.prefix(200))")
            #expect(reply.header("x-result-width") == "1400")
            let fixed = try await server.get(Self.plain(origin, "/rocket.jpg", options: "\(enlarged)/q:80"))
            #expect(reply.body == fixed.body && reply.header("content-type") == fixed.header("content-type"), "\(options)")
        }
    }
}
