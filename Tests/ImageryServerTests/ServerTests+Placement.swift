import Foundation
@testable import Imagery
import ImageryCodecs
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// Where a window lands, and what a cache buster costs, read from the pixels and the origin.
extension ServerTests {
    /// A 300×100 PNG whose every pixel names its place: red is the column's low byte, green its
    /// high byte, blue the row. A window of it names its own origin, and no two differ.
    static let coordinates: Bitmap = {
        var pixels: [UInt8] = []
        for y in 0..<100 {
            for x in 0..<300 { pixels += [UInt8(x & 0xFF), UInt8(x >> 8), UInt8(y), 255] }
        }
        return Bitmap(width: 300, height: 100, pixels: pixels, alphaMode: .opaque)
    }()

    @Test("A focus point places the window where imgproxy does, pixel for pixel: fp:0.9:0.1 keeps the top right, other points what no compass gravity keeps", arguments: [
        // rs:fill into 100×100 keeps the source's 100 rows and slides a window along 300 columns;
        // the window is centred on the point, moved inwards as little as needed.
        ("rs:fill:100:100/g:fp:0.9:0.1", 200, 0, 100, 100),   // centred on x = 270: as far right as it goes
        ("rs:fill:100:100/gravity:fp:0.6:0.5", 130, 0, 100, 100),   // centred on x = 180
        ("rs:fill:100:100/g:fp:0.1:0.9", 0, 0, 100, 100),
        ("rs:fill:100:100/g:ce", 100, 0, 100, 100),
        // A crop's window is free on both axes.
        ("c:100:50:fp:0.9:0.1", 200, 0, 100, 50),             // the top-right corner
        ("c:100:50:fp:0.5:0.6", 100, 35, 100, 50),            // centred on (150, 60)
        ("c:100:50/g:fp:0.25:0.75", 25, 50, 100, 50),         // the crop takes the options' gravity
    ])
    func focusPoint(options: String, x: Int, y: Int, width: Int, height: Int) async throws {
        let source = try ImageEncoder(format: .png).encode(Self.coordinates)
        let origin = try TestHTTPServer { request in request.path == "/coordinates.png" ? .ok(source) : .status(404) }
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }

        let reply = try await server.get(Self.plain(origin, "/coordinates.png", options: options + "/f:png"))
        try #require(reply.status == 200, "\(reply.text)")
        let image = try ServerHarness.image(reply)
        // The window of the source itself, cut with Imagery's own Bitmap API: no resampling at
        // scale 1, and PNG both ways, so every pixel must match.
        let expected = Self.coordinates.cropped(x: x, y: y, width: width, height: height)
        try #require(image.width == width && image.height == height, "\(image.width)x\(image.height)")
        #expect(Self.distance(image, expected, x: 0..<width, y: 0..<height) == 0)
        let corner = image.pixel(x: 0, y: 0)
        #expect(Int(corner.red) + 256 * Int(corner.green) == x && Int(corner.blue) == y, "the window starts at (\(x), \(y))")
    }

    @Test("A new cachebuster fetches the origin again and makes the same pixels; the same cachebuster again is a cache hit")
    func cacheBuster() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        func get(_ options: String) async throws -> ServerHarness.Reply {
            let reply = try await server.get(Self.plain(origin, "/rocket.jpg", options: options))
            try #require(reply.status == 200, "\(options): \(reply.text)")
            return reply
        }

        // Given a response made and cached
        let plain = try await get("w:200/f:png")
        #expect(origin.hits("/rocket.jpg") == 1)

        // When a cache buster is added, the origin is asked again, and the image is the same
        let busted = try await get("w:200/cb:v2/f:png")
        #expect(origin.hits("/rocket.jpg") == 2, "a new cache buster reaches the origin")
        let plainImage = try ServerHarness.image(plain), bustedImage = try ServerHarness.image(busted)
        #expect(bustedImage.width == plainImage.width && bustedImage.height == plainImage.height)
        #expect(Self.distance(bustedImage, plainImage, x: 0..<plainImage.width, y: 0..<plainImage.height) == 0)

        // And the same cache buster again is a hit: no download, no decode
        let before = server.server.pipeline.statistics
        let again = try await get("w:200/cb:v2/f:png")
        #expect(again.body == busted.body && again.header("etag") == busted.header("etag"))
        #expect(origin.hits("/rocket.jpg") == 2)
        let after = server.server.pipeline.statistics
        #expect(after.downloads == before.downloads && after.decodes == before.decodes)

        // And another one is fetched again, as the first was
        _ = try await get("w:200/cb:v3/f:png")
        #expect(origin.hits("/rocket.jpg") == 3)
    }
}
