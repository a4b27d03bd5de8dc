import Foundation
import Imagery
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// imgproxy's `IMGPROXY_ENABLE_DEBUG_HEADERS`, and the quality autoquality chose beside them.
extension ServerTests {
    @Test("--enable-debug-headers: the source's bytes and size, the result's size and its quality, on a hit of an entry made with them off too")
    func debugHeaders() async throws {
        let origin = try Self.origin()
        defer { origin.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-debug-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        func instance(debug: Bool) async throws -> ServerHarness {
            try await ServerHarness.start {
                $0.allowLoopbackSources = true
                $0.cacheDirectory = directory.path
                $0.enableDebugHeaders = debug
            }
        }
        let names = ["x-origin-content-length", "x-origin-width", "x-origin-height", "x-result-width", "x-result-height", "x-imagery-quality"]
        let path = Self.plain(origin, "/rocket.jpg", options: "w:300")

        // Given an answer made and stored by an instance with debug headers off
        let off = try await instance(debug: false)
        let made = try await off.get(path)
        #expect(made.status == 200)
        for name in names { #expect(made.header(name) == nil, "\(name) sent with debug headers off") }
        await off.server.writes.drain()
        off.cancel()

        // When an instance with them on answers it from the disk tier
        let on = try await instance(debug: true)
        defer { on.cancel() }
        let hit = try await on.get(path)

        // Then the same bytes say what they were made from, though nothing was downloaded
        #expect(hit.body == made.body && on.server.pipeline.statistics.downloads == 0)
        let expected = [String(Fixtures.rocket.count), "640", "427", "300", "200", "80"]
        #expect(names.map { hit.header($0) } == expected)
        #expect(try Self.size(of: hit.body) == "300x200")
        // …and which tier gave each answer, added as it leaves: never stored with it.
        #expect(made.header("x-imagery-tier") == nil)
        #expect(hit.header("x-imagery-tier") == "disk")
        #expect(try await on.get(path).header("x-imagery-tier") == "memory")
        #expect(try await on.get(Self.plain(origin, "/rocket.jpg", options: "w:301")).header("x-imagery-tier") == "none")

        // Autoquality's choice is the quality sent: the same request at that quality is the same bytes.
        let searched = try await on.get(Self.plain(origin, "/rocket.jpg", options: "w:300/aq:dssim:0.02:50:90"))
        let quality = try #require(searched.header("x-imagery-quality").flatMap(Int.init))
        #expect((50...90).contains(quality))
        #expect(try await on.get(Self.plain(origin, "/rocket.jpg", options: "w:300/q:\(quality)")).body == searched.body)

        // A format without a quality says none; a source sent as it is, its own size.
        let png = try await on.get(Self.plain(origin, "/rocket.jpg", options: "w:100") + "@png")
        #expect(png.header("x-imagery-quality") == nil && png.header("x-result-width") == "100" && png.header("x-origin-width") == "640")
        let skipped = try await on.get(Self.plain(origin, "/rocket.jpg", options: "w:100/skp:jpg"))
        #expect(skipped.body == Fixtures.rocket)
        #expect(skipped.header("x-result-width") == "640" && skipped.header("x-imagery-quality") == nil)
        #expect(skipped.header("x-origin-content-length") == String(Fixtures.rocket.count))
    }

    /// `WIDTHxHEIGHT` of an encoded image.
    static func size(of bytes: [UInt8]) throws -> String {
        let size = try #require(ImageHeader.size(of: bytes))
        return "\(size.width)x\(size.height)"
    }
}
