import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport
import NIOCore
import Testing

/// The server's own peak memory (VmHWM of its process) through a bomb of each format issue 33
/// names, all asked for at once: each is refused from what it claims, or rendered at the size
/// asked for, and none is decoded at the size it claims.
@Suite(.timeLimit(.minutes(10)))
struct FormatBombTests {
    static let svg = CIRun.runs(needingTrait: "SVG", compiled: ImageDecoder.supportedFormats.contains(.svg))
    static let tiff = CIRun.runs(needingTrait: "TIFF", compiled: ImageDecoder.supportedFormats.contains(.tiff))

    /// A bomb, what the origin serves for it, and the status the server answers with.
    struct Bomb: Sendable {
        let name: String
        let bytes: [UInt8]
        let status: Int
    }

    /// BMP always (it needs no trait); SVG and TIFF where the build has them.
    static var bombs: [Bomb] {
        var bombs = [Bomb(name: "lying.bmp", bytes: Fixtures.bytes("bmp_lies_claims_30000x30000.bmp"), status: 422)]
        if svg {
            bombs += [
                // Rendered straight at the size asked for; the canvas is never allocated.
                Bomb(name: "canvas.svg", bytes: Fixtures.svgCanvas(width: 200_000, height: 200_000), status: 200),
                Bomb(name: "use.svg", bytes: Fixtures.svgNestedUse(), status: 422),
                Bomb(name: "entities.svg", bytes: Fixtures.svgNestedEntities(), status: 422),
            ]
        }
        if tiff {
            bombs += [
                Bomb(name: "huge.tif", bytes: TIFFBuilder.header(width: 60_000, height: 60_000), status: 422),
                // The first page is the image; the other 9,999 are never read.
                Bomb(name: "pages.tif", bytes: TIFFBuilder.pages(10_000), status: 200),
            ]
        }
        return bombs
    }

    @Test(
        "A 30,000² BMP header, a 200,000² SVG canvas, nested <use> and entities, a 60,000² TIFF and 10,000 TIFF pages, at once: each refused or drawn small; the server's peak RSS stays under 600 MB",
        .tags(.integration), .offUnderSanitizer,
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func bombsStayWithinMemory() async throws {
        let bombs = Self.bombs
        let served = Dictionary(uniqueKeysWithValues: bombs.map { ("/\($0.name)", $0.bytes) })
        let origin = try TestHTTPServer { request in
            served[request.path].map { .ok($0) } ?? .status(404)
        }
        defer { origin.stop() }
        let server = try ServerProcess.start(["--port", "0", "--allow-loopback-sources"])
        defer { server.kill() }
        let port = try await server.port()
        let source = "plain/http://127.0.0.1:\(origin.port)"

        try await withThrowingTaskGroup(of: Void.self) { group in
            for bomb in bombs {
                group.addTask {
                    // PNG out: an SVG asked for with no format would be passed through as SVG.
                    let reply = try await ServerHarness.get(port: port, "/unsafe/rs:fit:300:300/\(source)/\(bomb.name)@png", timeout: .seconds(300))
                    #expect(reply.status == bomb.status, "\(bomb.name): \(reply.status) \(reply.text.prefix(200))")
                    if bomb.status == 200 {
                        let size = try #require(ImageHeader.size(of: reply.body, format: .png), "\(bomb.name)")
                        #expect(max(size.width, size.height) <= 300, "\(bomb.name): \(size)")
                    }
                }
            }
            try await group.waitForAll()
        }
        let peak = try AnimationMemoryTests.peakResidentBytes(of: server.pid)
        #expect(peak < 600 << 20, "peak RSS \(peak >> 20) MB")
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
    }
}
