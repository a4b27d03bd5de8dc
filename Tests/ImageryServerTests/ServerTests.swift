import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryDiskCache
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// The server over a real socket on 127.0.0.1, with a real origin on 127.0.0.1. Every request
/// in this suite goes to loopback; refused addresses are refused before any connection.
@Suite("imagery-server end to end", .timeLimit(.minutes(10)))
struct ServerTests {
    /// An origin with a JPEG (640×427), an opaque PNG, a PNG with alpha, a 404, a 500 and a redirect.
    static func origin(gate: Gate? = nil) throws -> TestHTTPServer {
        try TestHTTPServer { request in
            switch request.path {
            case "/rocket.jpg": gate.map { .gated(Fixtures.rocket, gate: $0) } ?? .ok(Fixtures.rocket)
            case "/logo.png": .ok(Fixtures.logo)
            case "/alpha.png": .ok(Fixtures.bytes("png_pal8_trns_debianlogo_256x256.png"))
            case "/text.txt": .ok(Array("not an image".utf8))
            case "/broken": .status(500)
            case "/to-unspecified": .redirect("http://0.0.0.0:9/rocket.jpg")
            default: .status(404)
            }
        }
    }

    static func plain(_ origin: TestHTTPServer, _ path: String, options: String = "rs:fit:300:300") -> String {
        "/unsafe/\(options)/plain/http://127.0.0.1:\(origin.port)\(path)"
    }

    @Test("A loopback origin is refused by default, before any request reaches it")
    func loopbackRefusedByDefault() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let server = try await ServerHarness.start()
        defer { server.cancel() }

        let reply = try await server.get(Self.plain(origin, "/rocket.jpg"))
        #expect(reply.status == 403)
        #expect(reply.text == "source: loopback addresses are refused\n")
        #expect(origin.hits("/rocket.jpg") == 0)
    }

    @Test("Every response names its instance: host:port as bound by default, or --instance-name")
    func instanceName() async throws {
        let unnamed = try await ServerHarness.start()
        defer { unnamed.cancel() }
        let named = try await ServerHarness.start { $0.instanceName = "edge-a" }
        defer { named.cancel() }

        for path in ["/health", "/metrics", "/unsafe/w:x/plain/local:///a.jpg"] {
            #expect(try await unnamed.get(path).header("X-Imagery-Instance") == "127.0.0.1:\(unnamed.port)")
            #expect(try await named.get(path).header("X-Imagery-Instance") == "edge-a")
        }
    }

    @Test("With --allow-loopback-sources: fit, base64 and plain sources, headers, 304 on If-None-Match")
    func servesAnImage() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }

        let reply = try await server.get(Self.plain(origin, "/rocket.jpg"))
        ServerHarness.expectImage(reply, .jpeg)
        #expect(reply.header("content-length") == String(reply.body.count))
        #expect(reply.header("cache-control") == "public, max-age=31536000, immutable")
        #expect(reply.header("vary") == "Accept")
        let image = try ServerHarness.image(reply)
        #expect(image.width == 300 && image.height == 200)

        let encoded = "/unsafe/rs:fit:300:300/" + "http://127.0.0.1:\(origin.port)/rocket.jpg".base64URL + ".png"
        let png = try await server.get(encoded)
        ServerHarness.expectImage(png, .png)
        #expect(png.header("vary") == nil)

        let etag = try #require(reply.header("etag"))
        let again = try await server.get(Self.plain(origin, "/rocket.jpg"), headers: [("If-None-Match", etag)])
        #expect(again.status == 304 && again.body.isEmpty && again.header("etag") == etag)
        #expect([nil, reply.header("content-length")].contains(again.header("content-length")))   // the 200's length or none, never 0
        #expect(origin.hits("/rocket.jpg") == 1)   // the PNG and the 304 came from what the first loaded
    }

    @Test("Concurrent identical requests cost one origin GET; other sizes share it too")
    func coalescing() async throws {
        let gate = Gate()
        let origin = try Self.origin(gate: gate)
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }

        // 7 requests: within the client's 8 connections per host, so all are at the server at once.
        let paths = Array(repeating: Self.plain(origin, "/rocket.jpg"), count: 5)
            + [Self.plain(origin, "/rocket.jpg", options: "w:100"), Self.plain(origin, "/rocket.jpg", options: "rs:fill:64:64")]
        try await withThrowingTaskGroup(of: Int.self) { group in
            for path in paths { group.addTask { try await server.get(path).status } }
            await server.server.pipeline.graph.waitUntil { $0.registeredCount == paths.count }   // every caller waits on the one download
            gate.open()
            for try await status in group { #expect(status == 200) }
        }
        #expect(origin.hits("/rocket.jpg") == 1)
        #expect(server.server.pipeline.statistics.downloads == 1)
    }

    @Test("With a key, a good signature is served and a wrong or missing one gets 403")
    func signatures() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.keyHex = key
            $0.saltHex = salt
        }
        defer { server.cancel() }
        let signed = "/w:64/plain/http://127.0.0.1:\(origin.port)/rocket.jpg"
        let signature = try ImgproxySigner(keysHex: key, saltsHex: salt).sign(signed)

        #expect(try await server.get("/" + signature + signed).status == 200)
        for bad in ["unsafe", "_", String(signature.reversed()), signature + "A"] {
            let reply = try await server.get("/" + bad + signed)
            #expect(reply.status == 403 && reply.text == "invalid signature\n")
        }
        #expect(try await server.get("/" + signature + "/w:65/plain/http://127.0.0.1:\(origin.port)/rocket.jpg").status == 403)
        #expect(origin.hits("/rocket.jpg") == 1)
    }

    @Test("Errors carry their status, one short line, and a short max-age")
    func errorStatuses() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-server-root-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(Fixtures.logo).write(to: root.appendingPathComponent("logo.png"))
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.localRoot = root.path
            $0.maximumSourcePixels = 400_000
        }
        defer { server.cancel() }

        let cases: [(String, Int, String)] = [
            ("/unsafe/zoom_in:2/plain/http://127.0.0.1:\(origin.port)/rocket.jpg", 400, "unknown option: zoom_in"),
            ("/unsafe/w:abc/plain/http://127.0.0.1:\(origin.port)/rocket.jpg", 400, "invalid option w"),
            (Self.plain(origin, "/missing.jpg"), 404, "source: not found"),
            (Self.plain(origin, "/text.txt"), 415, "source: not an image format"),
            (Self.plain(origin, "/broken"), 502, "source: the origin answered 500"),
            (Self.plain(origin, "/to-unspecified"), 403, "source: unspecified addresses are refused"),
            ("/unsafe/w:10/plain/local:///../etc/passwd", 403, "source: outside the local root"),
            ("/unsafe/w:10/plain/local:///nothing.png", 404, "source: not found"),
            ("/unsafe/w:10/plain/ftp://127.0.0.1/a.jpg", 400, "source: not an http(s) or local:// URL"),
            ("/unsafe/w:10/plain/http://127.0.0.1:\(origin.port)/rocket.jpg@pdf", 400, "extension: unsupported format pdf"),
        ]
        for (path, status, line) in cases {
            let reply = try await server.get(path)
            #expect(reply.status == status, "\(path)")
            #expect(reply.text.hasPrefix(line) && reply.text.split(separator: "\n").count == 1, "\(reply.text)")
            #expect(reply.header("cache-control") == nil, "errors carry no Cache-Control by default, as imgproxy 4's")
            #expect(reply.header("x-content-type-options") == "nosniff")
            #expect(!reply.text.contains(root.path))
        }
        // 640×427 = 273,280 pixels passes the 400,000-pixel limit; the 1280×1024 meadow would not.
        #expect(try await server.get("/unsafe/w:10/plain/local:///logo.png").status == 200)
        #expect(origin.hits("/to-unspecified") == 1)   // the redirect itself was requested; 0.0.0.0 never was
    }

    @Test("Too many pixels is 422; a source over the byte limit is 413")
    func limits() async throws {
        let origin = try TestHTTPServer { request in request.path == "/meadow.jpg" ? .ok(Fixtures.meadow) : .status(404) }
        defer { origin.stop() }
        let strict = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.maximumSourcePixels = 1_000_000
        }
        defer { strict.cancel() }
        let tooManyPixels = try await strict.get(Self.plain(origin, "/meadow.jpg"))
        #expect(tooManyPixels.status == 422 && tooManyPixels.text.contains("1280x1024"))

        let small = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.maximumSourceBytes = 10_000
        }
        defer { small.cancel() }
        #expect(try await small.get(Self.plain(origin, "/meadow.jpg")).status == 413)
    }

    @Test("A full queue answers 503 with Retry-After instead of growing")
    func overload() async throws {
        let gate = Gate()
        let origin = try Self.origin(gate: gate)
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.maximumQueue = 2
        }
        defer { server.cancel() }

        async let first = server.get(Self.plain(origin, "/rocket.jpg", options: "w:10"))
        async let second = server.get(Self.plain(origin, "/rocket.jpg", options: "w:20"))
        await server.server.pipeline.graph.waitUntil { $0.registeredCount == 2 }
        let refused = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:30"))
        #expect(refused.status == 503 && refused.header("retry-after") == "1")
        #expect(refused.header("cache-control") == "no-store")
        #expect(server.metric(#"imagery_unavailable_total{reason="queue"}"#) == 1)
        gate.open()
        #expect(try await first.status == 200)
        #expect(try await second.status == 200)
        #expect(try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:30")).status == 200)
    }

    @Test("Every option changes the output as imgproxy documents it")
    func everyOption() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        func image(_ options: String, _ path: String = "/rocket.jpg") async throws -> Bitmap {
            let reply = try await server.get(Self.plain(origin, path, options: options))
            try #require(reply.status == 200, "\(options): \(reply.text)")
            return try ServerHarness.image(reply)
        }
        func size(_ options: String, _ path: String = "/rocket.jpg") async throws -> String {
            let bitmap = try await image(options, path)
            return "\(bitmap.width)x\(bitmap.height)"
        }

        // The source is 640×427.
        #expect(try await size("rs:fit:320:320") == "320x214")
        #expect(try await size("resize:fill:100:100") == "100x100")
        #expect(try await size("rs:fill:100:100/g:sm") == "100x100")
        // Focus points are checked pixel for pixel in focusPoint(options:x:y:width:height:).
        #expect(try await size("rs:force:100:50") == "100x50")
        #expect(try await size("rt:auto/w:100/h:200") == "100x67")            // landscape into portrait: fit
        #expect(try await size("rt:auto/w:200/h:100") == "200x100")           // same orientation: fill
        #expect(try await size("rt:fill-down/s:1000:500") == "640x320")       // never enlarged, box's ratio kept
        #expect(try await size("s:1280:0") == "640x427")                      // not enlarged by default
        #expect(try await size("s:1280:0:1") == "1280x854")                   // size's enlarge
        #expect(try await size("w:1280/el:1") == "1280x854")
        #expect(try await size("h:100") == "150x100")
        #expect(try await size("w:100/dpr:2") == "200x133")
        #expect(try await size("c:320:200/w:160") == "160x100")               // crop first, then resize
        #expect(try await size("crop:0.5:0.5:nowe") == "320x214")              // fractions of the source
        #expect(try await size("rs:fit:100:100/rot:90") == "67x100")          // the box applies to the rotated image
        #expect(try await size("rs:fit:300:300:0:1/bg:ffffff") == "300x300")  // extend pads to the box
        #expect(try await size("s:300:300/ex:1:so") == "300x300")

        // Blur and sharpen change pixels but not the size; quality changes the bytes.
        let plainImage = try await image("w:200")
        let blurred = try await image("w:200/bl:4")
        let sharpened = try await image("w:200/sharpen:1")
        #expect(ImageComparison.psnr(plainImage, blurred) < 35)
        #expect(ImageComparison.psnr(plainImage, sharpened) < 45)
        let high = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:200/q:95"))
        let low = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:200/quality:20"))
        #expect(low.body.count < high.body.count / 2)
        // A quality per format wins over q for that format only; max_bytes lowers the quality until it fits.
        let perFormat = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:200/q:95/fq:jpg:20:webp:90"))
        #expect(perFormat.body.count < high.body.count / 2)
        let otherFormat = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:200/q:95/fq:webp:20"))
        #expect(otherFormat.body.count == high.body.count)
        let big = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:600/q:95"))
        let capped = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:600/q:95/mb:\(big.body.count / 3)"))
        #expect(capped.status == 200 && capped.body.count <= big.body.count / 3 && capped.body.count > big.body.count / 6)
        let impossible = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:600/q:95/mb:100"))
        #expect(impossible.status == 200 && impossible.body.count < capped.body.count, "the smallest tried, as imgproxy answers")
        // Autoquality chooses per image: a size goal gives an encode within it, a DSSIM goal one
        // that measures within its error of the image (here its q:100 encode), and max_bytes
        // lowers from what autoquality chose.
        let sized = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:600/aq:size:\(big.body.count / 3):10:95"))
        #expect(sized.status == 200 && sized.body.count <= big.body.count / 3 && sized.body.count > big.body.count / 6, "\(sized.body.count)")
        let reference = StructuralSimilarity.Reference(try await image("w:600/q:100"))
        let aimed = try await image("w:600/aq:dssim:0.02:10:95:0.002")
        #expect(reference.dssim(aimed) <= 0.025, "DSSIM \(reference.dssim(aimed))")
        let aimedBytes = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:600/aq:dssim:0.02:10:95:0.002"))
        #expect(aimedBytes.body.count < big.body.count)
        let both = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:600/aq:dssim:0.005:10:95/mb:\(aimedBytes.body.count)"))
        #expect(both.status == 200 && both.body.count <= aimedBytes.body.count)
        // The cache buster is checked at the origin in cacheBuster().

        // Flip mirrors (lossless PNG, so pixels compare exactly); the metadata options are accepted.
        let unflipped = try await image("w:200/f:png")
        let mirrored = try await image("w:200/fl:1/f:png"), upsideDown = try await image("w:200/fl:0:1/f:png")
        #expect(mirrored.pixel(x: 0, y: 10) == unflipped.pixel(x: 199, y: 10) && mirrored.pixel(x: 150, y: 5) == unflipped.pixel(x: 49, y: 5))
        #expect(upsideDown.pixel(x: 10, y: 0) == unflipped.pixel(x: 10, y: unflipped.height - 1))
        #expect(try await size("w:200/sm:1/kcr:1/scp:1/ph:0/ar:1/eth:0") == size("w:200"))

        // Padding adds pixels (times dpr), transparent without a background; pixelate makes blocks.
        let padded = try await image("w:100/pd:10:20/f:png")
        #expect(padded.width == unflipped.width / 2 + 40 && padded.pixel(x: 0, y: 0).alpha == 0 && padded.pixel(x: 60, y: 40).alpha == 255)
        #expect(try await image("w:100/pd:5/dpr:2/f:png").width == 220)
        let pixelated = try await image("w:200/pix:10/f:png")
        #expect(pixelated.pixel(x: 0, y: 0) == pixelated.pixel(x: 9, y: 9) && pixelated.pixel(x: 20, y: 20) == pixelated.pixel(x: 29, y: 21))
        #expect(ImageComparison.psnr(unflipped, pixelated) < 30)

        // Background flattens alpha; format picks the encoder.
        let png = try await server.get(Self.plain(origin, "/alpha.png", options: "w:100/f:png"))
        #expect(ServerHarness.expectImage(png, .png)?.hasTransparency == true)
        let flattened = try await server.get(Self.plain(origin, "/alpha.png", options: "w:100/f:png/bg:255:0:0"))
        #expect(try !ServerHarness.image(flattened).hasTransparency)
        let negotiated = try await server.get(Self.plain(origin, "/alpha.png", options: "w:100"))
        ServerHarness.expectImage(negotiated, .png, "alpha and no WebP asked for")
        let jpeg = try await server.get(Self.plain(origin, "/alpha.png", options: "w:100/format:jpg"))
        ServerHarness.expectImage(jpeg, .jpeg)
    }

    @Test("An app's pipeline routed through ImgproxyURLBuilder gets the image it would have made itself, from one small download")
    func routedPipeline() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let key = "00112233445566778899aabbccddeeff", salt = "0f0e"
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.keyHex = key
            $0.saltHex = salt
        }
        defer { server.cancel() }
        let router = ImgproxyURLBuilder(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, signer: try ImgproxySigner(keysHex: key, saltsHex: salt)
        )

        // Given a request that resizes, rotates and blurs on the server and rounds its corners on the device
        var request = ImageRequest(url: URL(string: "http://127.0.0.1:\(origin.port)/rocket.jpg")!, resize: .fit(width: 120, height: 120))
        request.processors = [.rotate(degrees: 90), .blur(sigma: 1), .roundedCorners(8)]
        let direct = try await Fixtures.pipeline().response(for: request).image
        // The server's answer may wait behind the rest of a full parallel run: the suite's time
        // limit bounds it, not the loader's default 30 s.
        var patient = DataLoader.Configuration()
        patient.timeout = .seconds(170)
        let routedPipeline = Fixtures.pipeline(loader: DataLoader(configuration: patient))
        let routed = try await ImagePipeline(configuration: routedPipeline.configuration.with { $0.requestRouter = router })
            .response(for: request).image

        // Then both are 80x120 with the same corners, and close in pixels (JPEG q80 between them)
        #expect(routed.width == 80 && routed.height == 120)
        #expect(direct.width == routed.width && direct.height == routed.height)
        #expect(routed.hasTransparency)
        #expect(ImageComparison.psnr(direct, routed) > 30)
        #expect(origin.hits("/rocket.jpg") == 2)   // once for the app's own pipeline, once for the server
    }

    @Test("/health and /metrics answer while the image queue is full and its requests wait on the origin")
    func healthUnderLoad() async throws {
        let gate = Gate()
        let origin = try Self.origin(gate: gate)
        defer { origin.stop() }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.maximumQueue = 2
        }
        defer { server.cancel() }

        // Given the queue full: two images held at the origin, a third refused
        async let first = server.get(Self.plain(origin, "/rocket.jpg", options: "w:11"))
        async let second = server.get(Self.plain(origin, "/rocket.jpg", options: "w:12"))
        await server.server.pipeline.graph.waitUntil { $0.registeredCount == 2 }
        #expect(try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:13")).status == 503)

        // Then the orchestrator's checks are answered meanwhile
        let health = try await server.get("/health")
        #expect(health.status == 200 && health.text == "ok\n")
        let metrics = try await server.get("/metrics")
        #expect(metrics.status == 200 && metrics.text.contains("imagery_image_requests_queued 2"))
        #expect(await server.server.pipeline.graph.registeredCount == 2)   // the images still wait
        gate.open()
        #expect(try await first.status == 200)
        #expect(try await second.status == 200)
    }
}

extension ServerTests {
    @Test("--cache-lock-timeout reaches the disk tier the instances share")
    func cacheLockTimeout() async throws {
        let directory = NSTemporaryDirectory() + "imagery-lock-timeout-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await ServerHarness.start {
            $0.cacheDirectory = directory
            $0.cacheLockTimeout = .seconds(3)
        }
        defer { server.cancel() }
        let disk = try #require((server.server.images.tiers.shared.first as? ResponseDiskTier)?.store as? DiskCache)
        #expect(disk.configuration.lockTimeout == .seconds(3))
    }
}
