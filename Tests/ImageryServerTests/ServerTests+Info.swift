import Crypto
import Foundation
import Imagery
import ImageryCodecs
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Synchronization
import Testing

/// `/info`, field by field, against what the source is known to be.
extension ServerTests {
    static func infoOrigin() throws -> TestHTTPServer {
        try TestHTTPServer { request in
            switch request.path {
            case "/rocket.jpg": .ok(Fixtures.rocket)
            case "/rocket-small.png": .ok(Fixtures.bytes("reference_rocket_lcms_srgb_160x107.png"))
            case "/aqua.jpg": .ok(Fixtures.bytes("jpeg_exif6_aqua_2560x1600.jpg"))
            case "/logo.png": .ok(Fixtures.bytes("png_pal8_trns_debianlogo_256x256.png"))
            case "/anim.gif": .ok(Fixtures.bytes("gif_anim_rocket_8f_160x107.gif"))
            case "/text.txt": .ok(Array("not an image".utf8))
            default: .status(404)
            }
        }
    }

    static func info(_ origin: TestHTTPServer, _ name: String, options: String = "") -> String {
        "/info/unsafe/" + (options.isEmpty ? "" : options + "/") + "plain/http://127.0.0.1:\(origin.port)\(name)"
    }

    static func json(_ reply: ServerHarness.Reply) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any], "\(reply.text)")
    }

    /// Mean absolute difference per channel of two pictures of one size.
    static func difference(_ a: Bitmap, _ b: Bitmap) -> Double {
        var total = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                total += abs(Int(p.red) - Int(q.red)) + abs(Int(p.green) - Int(q.green)) + abs(Int(p.blue) - Int(q.blue))
            }
        }
        return Double(total) / Double(a.width * a.height * 3)
    }

    @Test("/info answers size, format and dimensions by default; width and height are as displayed, after EXIF orientation")
    func infoDefaults() async throws {
        let origin = try Self.infoOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        let reply = try await server.get(Self.info(origin, "/rocket.jpg"))
        #expect(reply.status == 200 && reply.header("content-type") == "application/json")
        let rocket = try Self.json(reply)
        #expect(rocket["size"] as? Int == Fixtures.rocket.count)
        #expect(rocket["format"] as? String == "jpeg" && rocket["mime_type"] as? String == "image/jpeg")
        #expect(rocket["width"] as? Int == 640 && rocket["height"] as? Int == 427 && rocket["orientation"] as? Int == 1)
        #expect(rocket["average"] == nil && rocket["thumb_hash"] == nil, "pixel fields are off by default")
        _ = try await server.get(Self.info(origin, "/rocket.jpg"))
        #expect(origin.hits("/rocket.jpg") == 1, "the answer is cached")

        let aqua = try Self.json(try await server.get(Self.info(origin, "/aqua.jpg")))
        #expect(aqua["width"] as? Int == 1600 && aqua["height"] as? Int == 2560 && aqua["orientation"] as? Int == 6)
        #expect((aqua["exif"] as? [String: String])?["Orientation"] == "6")
        let logo = try Self.json(try await server.get(Self.info(origin, "/logo.png", options: "pn:1/a:1:1/b:1/cs:1/sf:1")))
        #expect(logo["width"] as? Int == 256 && logo["format"] as? String == "png")
        #expect(logo["pages_number"] as? Int == 1 && logo["alpha"] as? Bool == true && logo["bands"] as? Int == 4)
        #expect(logo["colorspace"] as? String == "srgb" && logo["sample_format"] as? String == "uchar")
        let gif = try Self.json(try await server.get(Self.info(origin, "/anim.gif", options: "pn:1")))
        #expect(gif["pages_number"] as? Int == 8)
    }

    @Test("/info's pixel fields: ThumbHash and BlurHash decode to pictures of the image; average, colours, palette, perceptual hash and hashsums")
    func infoPixelFields() async throws {
        let origin = try Self.infoOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        let options = "th:1/bh:4:3/avg:1/dc:1:1/p:4/ph:1/chs:md5:sha256"
        let fields = try Self.json(try await server.get(Self.info(origin, "/rocket.jpg", options: options)))
        let full = try ImageDecoder().decode(Fixtures.rocket)

        let thumbHex = try #require(fields["thumb_hash"] as? String)
        let thumbHash = try #require(ThumbHash(bytes: Hex.decode(thumbHex) ?? []))
        let thumbPicture = thumbHash.image()
        let reference = try full.resized(.fill(width: thumbPicture.width, height: thumbPicture.height), allowsUpscaling: false)
        #expect(Self.difference(thumbPicture, reference) < 25, "the ThumbHash is a picture of the rocket")
        let other = try ImageDecoder().decode(Fixtures.logo)
        let otherReference = try other.resized(.fill(width: thumbPicture.width, height: thumbPicture.height))
        #expect(Self.difference(thumbPicture, reference) * 2 < Self.difference(thumbPicture, otherReference), "and not of another")
        let blurString = try #require(fields["blurhash"] as? String)
        let blurHash = try #require(BlurHash(string: blurString))
        #expect(blurHash.components == (4, 3))
        let blurPicture = blurHash.image(width: 32, height: 21)
        #expect(Self.difference(blurPicture, try full.resized(.fill(width: 32, height: 21))) < 30, "the BlurHash is a picture of the rocket")

        let average = try #require(fields["average"] as? [String: Int])
        let exact = ImageInfo.average(of: full, ignoringTransparent: true)
        #expect(abs(average["R", default: -99] - Int(exact.red)) <= 4 && abs(average["G", default: -99] - Int(exact.green)) <= 4)
        #expect(average["A"] == 255)
        let dominant = try #require(fields["dominant_colors"] as? [String: [String: Int]])
        #expect(Set(dominant.keys) == ["vibrant", "light_vibrant", "dark_vibrant", "muted", "light_muted", "dark_muted"])
        #expect(dominant.values.allSatisfy { $0.keys.sorted() == ["B", "G", "R"] })
        #expect((fields["palette"] as? [[String: Int]])?.count == 4)

        let hashsums = try #require(fields["hashsums"] as? [String: String])
        #expect(hashsums["sha256"] == Hex.encode(SHA256.hash(data: Fixtures.rocket)))
        #expect(hashsums["md5"] == Hex.encode(Insecure.MD5.hash(data: Fixtures.rocket)))

        // A resized copy keeps the perceptual hash within a few bits; another image does not.
        func bits(_ name: String) async throws -> UInt64 {
            let fields = try Self.json(try await server.get(Self.info(origin, name, options: "ph:1")))
            let hex = try #require(fields["perceptual_hash"] as? String)
            return try #require(UInt64(hex, radix: 16))
        }
        let rocketHex = try #require(fields["perceptual_hash"] as? String)
        let rocket = try #require(UInt64(rocketHex, radix: 16))
        let small = try await bits("/rocket-small.png"), logo = try await bits("/logo.png")
        #expect((rocket ^ small).nonzeroBitCount <= 8, "\(String(rocket, radix: 16)) vs \(String(small, radix: 16))")
        #expect((rocket ^ logo).nonzeroBitCount >= 16)
    }

    @Test("/info refuses bad options, a wrong hashsum, an expired URL (even once cached) and a bad signature, each with its own line")
    func infoRefusals() async throws {
        let origin = try Self.infoOrigin()
        defer { origin.stop() }
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let clock = SecondsClock(seconds: 1_000_000)
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.keyHex = key
            $0.saltHex = salt
            $0.clock = { clock.seconds }
        }
        defer { server.cancel() }
        let signer = try ImgproxySigner(keysHex: key, saltsHex: salt)
        func signed(_ name: String, _ options: String) -> String {
            let rest = (options.isEmpty ? "" : "/" + options) + "/plain/http://127.0.0.1:\(origin.port)\(name)"
            return "/info/" + signer.sign(rest) + rest
        }
        let refusals: [(String, Int, String)] = [
            (signed("/rocket.jpg", "nope:1"), 400, "unknown info option: nope"),
            (signed("/rocket.jpg", "bh:4"), 400, "invalid option bh: takes 2 arguments"),
            (signed("/rocket.jpg", "bh:4:10"), 400, "invalid option bh: 10 is not a valid number"),
            (signed("/rocket.jpg", "p:1"), 400, "invalid option p: takes 0 (off) or 2 to 256 colours"),
            (signed("/rocket.jpg", "do:1"), 400, "do: object detection and info crops are not supported"),
            (signed("/rocket.jpg", "hs:sha256:00ff"), 422, "hashsum: the source's sha256 does not match"),
            (signed("/rocket.jpg", "exp:999999"), 404, "the URL has expired"),
            (signed("/text.txt", ""), 415, "source: not an image format this server reads"),
            ("/info/unsafe/plain/http://127.0.0.1:\(origin.port)/rocket.jpg", 403, "invalid signature"),
        ]
        for (path, status, line) in refusals {
            let reply = try await server.get(path)
            #expect(reply.status == status && reply.text == line + "\n", "\(path): \(reply.status) \(reply.text)")
        }
        let expiring = signed("/rocket.jpg", "exp:1000600")
        let fresh = try await server.get(expiring)
        #expect(fresh.status == 200 && fresh.header("cache-control") == "public, max-age=600", "max-age never reaches past the expiry")
        clock.seconds = 1_000_600
        #expect(try await server.get(expiring).status == 404, "expired, though its answer is cached")
        let digest = Hex.encode(SHA256.hash(data: Fixtures.rocket))
        #expect(try await server.get(signed("/rocket.jpg", "hs:sha256:\(digest)")).status == 200)
    }
}

extension ServerTests {
    @Test("An image URL with expires is served with a max-age that stops at the expiry, then 404, even from the cache")
    func expiringImageURL() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let clock = SecondsClock(seconds: 2_000_000)
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.clock = { clock.seconds }
        }
        defer { server.cancel() }
        let path = Self.plain(origin, "/rocket.jpg", options: "w:64/exp:2000300")
        let fresh = try await server.get(path)
        #expect(fresh.status == 200 && fresh.header("cache-control") == "public, max-age=300")
        clock.seconds = 2_000_200
        let cached = try await server.get(path)
        #expect(cached.status == 200 && cached.header("cache-control") == "public, max-age=100", "the stored answer, its max-age shortened")
        clock.seconds = 2_000_300
        let expired = try await server.get(path)
        #expect(expired.status == 404 && expired.text == "the URL has expired\n")
        #expect(try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:64/exp:1")).status == 404)
        #expect(try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:64/exp:soon")).status == 400)
        #expect(origin.hits("/rocket.jpg") == 1, "an expired URL costs no download")
        let plain = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:64"))
        #expect(plain.header("cache-control") == "public, max-age=31536000, immutable", "a URL without expires keeps the server's")
    }
}

/// The server's wall clock in whole seconds (``ServerConfiguration/clock``), set by hand; not
/// ImageryTestSupport's `ManualClock`, which is a `Clock` that sleeps.
final class SecondsClock: Sendable {
    private let storage: Mutex<Int>
    init(seconds: Int) { storage = Mutex(seconds) }
    var seconds: Int {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

extension ServerTests {
    @Test("An app asks /info for a ThumbHash through the URL builder, signed, and shows it as its request's placeholder")
    func infoThroughURLBuilder() async throws {
        let origin = try Self.infoOrigin()
        defer { origin.stop() }
        let key = String(repeating: "ab", count: 16), salt = String(repeating: "cd", count: 16)
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.keyHex = key
            $0.saltHex = salt
        }
        defer { server.cancel() }
        let builder = ImgproxyURLBuilder(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, signer: try ImgproxySigner(keysHex: key, saltsHex: salt))

        let url = try #require(builder.infoURL(source: "http://127.0.0.1:\(origin.port)/rocket.jpg", options: ImgproxyInfoOptions(segments: ["th:1"])))
        let reply = try await server.get(url.path)
        #expect(reply.status == 200, "\(reply.text)")
        let hex = try #require(try Self.json(reply)["thumb_hash"] as? String)
        var request = ImageRequest(url: URL(string: "http://127.0.0.1:\(origin.port)/rocket.jpg")!)
        request.placeholder = PlaceholderHash(thumbHashHex: hex)
        // The rocket is 640 x 427: its placeholder is 32 pixels wide, landscape.
        let placeholder = try #require(request.placeholder?.image)
        #expect(placeholder.width == 32 && placeholder.height < 32)

        // Unsigned, the same path is refused by this server
        let unsigned = ImgproxyURLBuilder(baseURL: URL(string: "http://127.0.0.1:\(server.port)")!)
        let refused = try await server.get(try #require(unsigned.infoURL(source: "http://127.0.0.1:\(origin.port)/rocket.jpg", options: ImgproxyInfoOptions(segments: ["th:1"]))).path)
        #expect(refused.status == 403)
    }
}
