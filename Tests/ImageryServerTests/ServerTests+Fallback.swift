import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// The fallback image (issue 32): served, processed as the URL asks, when the origin fails,
/// answers an error, times out or sends too much; never for a refused URL; never stored.
extension ServerTests {
    /// A small square PNG, 80×80 (the rocket is wider than high, so a fallback is told apart by shape).
    static func fallbackPNG() throws -> [UInt8] {
        try ImageEncoder(format: .png).encode(Bitmap(width: 80, height: 80, filledWith: RGBA(red: 20, green: 40, blue: 200)))
    }

    @Test("A failing origin gets the fallback image, processed as the URL asks, with a short max-age; a bad URL gets its error")
    func fallbackImage() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let silent = try TestHTTPServer { _ in .silent }
        defer { silent.stop() }
        let fallback = try Self.fallbackPNG()
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.fallbackImage.data = Data(fallback).base64EncodedString()
            $0.upstreamTimeout = .seconds(1)
            $0.maximumSourceBytes = 100_000
        }
        defer { server.cancel() }

        for source in ["/missing.jpg", "/broken"] {
            let reply = try await server.get(Self.plain(origin, source, options: "rs:fill:40:30/f:png"))
            let image = ServerHarness.expectImage(reply, .png, "\(source)")
            #expect(reply.header("cache-control") == "max-age=60, public")
            #expect(image?.width == 40 && image?.height == 30, "\(source)")
        }
        let timedOut = try await server.get("/unsafe/w:25/plain/http://127.0.0.1:\(silent.port)/slow.jpg")
        #expect(try timedOut.status == 200 && ServerHarness.image(timedOut).width == 25)
        let tooLarge = try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:30"))   // 112 KB over the 100 KB limit
        #expect(try tooLarge.status == 200 && ServerHarness.image(tooLarge).height == 30)   // the square, not the rocket

        // Not for what is wrong with the URL or the source itself.
        #expect(try await server.get(Self.plain(origin, "/rocket.jpg", options: "w:abc")).status == 400)
        #expect(try await server.get("/unsafe/w:10/plain/ftp://127.0.0.1/a.jpg").status == 400)
        #expect(try await server.get(Self.plain(origin, "/text.txt")).status == 415)
    }

    @Test("--fallback-image-http-code sets its status, 0 keeps the failure's; --fallback-image-ttl 0 follows --cache-control")
    func fallbackStatus() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-fallback-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("fallback.png")
        try Data(Fixtures.logo).write(to: file)
        let kept = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.fallbackImage.path = file.path
            $0.fallbackImage.httpCode = 0
            $0.fallbackImage.ttl = 0
            $0.cacheControl = "public, max-age=99"
        }
        defer { kept.cancel() }
        let teapot = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.fallbackImage.path = file.path
            $0.fallbackImage.httpCode = 418
        }
        defer { teapot.cancel() }

        let missing = try await kept.get(Self.plain(origin, "/missing.jpg"))
        #expect(missing.status == 404)
        #expect(missing.header("content-type")?.hasPrefix("image/") == true)   // negotiated as any image is: an opaque PNG goes out as JPEG
        #expect(ImageFormat(sniffing: missing.body)?.mimeType == missing.header("content-type"), "the body is what its Content-Type says")
        #expect(missing.header("cache-control") == "public, max-age=99")
        #expect(try ServerHarness.image(missing).width == 300)
        #expect(try await kept.get(Self.plain(origin, "/broken")).status == 502)
        #expect(try await teapot.get(Self.plain(origin, "/broken")).status == 418)
    }

    @Test("The fallback is never stored as the source's answer: once the origin is back, its image is served, from memory, disk or the edge")
    func fallbackNeverStored() async throws {
        let healthy = Locked(false)
        let origin = try TestHTTPServer { request in
            request.path == "/flaky.jpg" && healthy.withLock({ $0 }) ? .ok(Fixtures.rocket) : .status(503)
        }
        defer { origin.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-fallback-tiers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fallback = try Self.fallbackPNG()
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.fallbackImage.data = Data(fallback).base64EncodedString()
            $0.cacheDirectory = directory.path
        }
        defer { server.cancel() }
        let path = Self.plain(origin, "/flaky.jpg", options: "w:100")

        let stand = try await server.get(path)
        #expect(try stand.status == 200 && ServerHarness.image(stand).height == 80)
        await server.server.writes.drain()
        #expect(Self.responseWrites(of: server) == 0)
        healthy.withLock { $0 = true }
        let real = try await server.get(path)
        #expect(try real.status == 200 && ServerHarness.image(real).height == 67)
        #expect(try await server.get(path).body == real.body)
        await server.server.writes.drain()
        #expect(Self.responseWrites(of: server) == 1)
    }

    @Test("A fallback image that cannot be read, fetched or decoded stops the start naming its setting; two of them are refused; a URL goes through the source guard")
    func fallbackSettings() async throws {
        var unreadable = ServerConfiguration()
        unreadable.fallbackImage.path = "/nonexistent/fallback.png"
        do {
            try await unreadable.loadImages()
            Issue.record("an unreadable fallback was accepted")
        } catch {
            #expect(error.setting == "fallback-image-path" && error.reason.contains("could not be read"))
        }
        var notImage = ServerConfiguration()
        notImage.fallbackImage.data = Data("not an image".utf8).base64EncodedString()
        do {
            try await notImage.loadImages()
            Issue.record("a fallback that is not an image was accepted")
        } catch {
            #expect(error.setting == "fallback-image-data" && error.reason.contains("not an image"))
        }
        var loopback = ServerConfiguration()
        loopback.fallbackImage.url = "http://127.0.0.1:9/fallback.png"
        do {
            try await loopback.loadImages()
            Issue.record("a loopback fallback URL was fetched")
        } catch {
            #expect(error.setting == "fallback-image-url" && error.reason.contains("loopback"))
        }
        let origin = try Self.origin()
        defer { origin.stop() }
        var fetched = ServerConfiguration()
        fetched.allowLoopbackSources = true
        fetched.fallbackImage.url = "http://127.0.0.1:\(origin.port)/logo.png"
        try await fetched.loadImages()
        #expect(fetched.fallbackImage.image?.bytes == Fixtures.logo)

        let two = try #require(await ServerSettingsTests.refusal(environment: ["IMGPROXY_FALLBACK_IMAGE_DATA": "aGVsbG8=", "IMGPROXY_FALLBACK_IMAGE_PATH": "/tmp/a.png"]))
        #expect(two.setting == "--fallback-image-path" && two.reason.contains("give one of"))
        let code = try #require(await ServerSettingsTests.refusal(environment: ["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "42"]))
        #expect(code.setting == "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE" && code.reason.contains("100...599"))
        #expect(try await ServerSettingsTests.load(environment: ["IMGPROXY_FALLBACK_IMAGE_TTL": "0"]).configuration.fallbackImage.ttl == 0)
    }

    /// Writes the server began to its shared tiers.
    static func responseWrites(of server: ServerHarness) -> Double {
        String(decoding: server.server.metrics.render(), as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix(#"imagery_response_writes_total{tier="disk"} "#) }
            .flatMap { $0.split(separator: " ").last }
            .flatMap { Double($0) } ?? 0
    }
}
