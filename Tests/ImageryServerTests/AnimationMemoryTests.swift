import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport
import NIOCore
import Testing

/// The server's own peak memory (VmHWM of its process) through animation bombs and large
/// animations that fit the limits: one of 100 megapixel frames, 400 MB held whole, which the
/// server streams from decoder to encoder a frame at a time.
// Minutes beside the whole suite: the server's heavy work runs at nice 10, behind every test
// thread of this process, so its deadlines are against a hang, not a measure.
@Suite(.timeLimit(.minutes(10)))
struct AnimationMemoryTests {
    /// The process's peak resident set so far, from /proc: its own, since exec gave it a new one.
    static func peakResidentBytes(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes << 10
    }

    @Test(
        "Bombs of 3,000 frames are 422 in any format; 12 frames on 600x600 and 100 on 1000x1000 (400 MB whole) are served; the server's peak RSS stays under 300 MB",
        .tags(.integration), .offUnderSanitizer,
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func bombsStayWithinMemory() async throws {
        let bomb = Fixtures.bytes("gif_anim_bomb_2000x2000_3000f.gif"), fitting = Fixtures.gifBomb(frames: 12, size: 600)
        let long = Fixtures.gifBomb(frames: 100, size: 1000)
        let origin = try TestHTTPServer { request in
            switch request.path {
            case "/bomb.gif": .ok(bomb)
            case "/fitting.gif": .ok(fitting)
            case "/long.gif": .ok(long)
            default: .status(404)
            }
        }
        defer { origin.stop() }
        // Frames are checked one by one (imgproxy's per-frame resolution), so 100 megapixels pass.
        let server = try ServerProcess.start(["--port", "0", "--allow-loopback-sources", "--max-animation-frame-pixels", "1000000", "--request-timeout", "540"])
        defer { server.kill() }
        let port = try await server.port()
        let source = "plain/http://127.0.0.1:\(origin.port)"

        try await withThrowingTaskGroup(of: Void.self) { group in
            for format in ["gif", "png", "jpg"] {
                group.addTask {
                    let reply = try await ServerHarness.get(port: port, "/unsafe/rs:fit:300:300/\(source)/bomb.gif@\(format)", timeout: .seconds(540))
                    #expect(reply.status == 422, "\(format): \(reply.text)")
                }
            }
            for size in [200, 300] {
                group.addTask {
                    let reply = try await ServerHarness.get(port: port, "/unsafe/rs:fit:\(size):\(size)/\(source)/fitting.gif@gif", timeout: .seconds(540))
                    #expect(reply.status == 200, "\(size): \(reply.text)")
                    let frames = try ImageDecoder().decodeAnimation(reply.body, resize: nil, allowsUpscaling: false, options: DecodingOptions())
                    #expect(frames?.frames.count == 12 && frames?.size == PixelSize(width: size, height: size))
                }
            }
            group.addTask {
                // 100 megapixels decoded, each frame fitted to 300 px before a debug build's
                // quantizer sees it (at 1000 px it took minutes beside the whole suite).
                let reply = try await ServerHarness.get(port: port, "/unsafe/rs:fit:300:300/\(source)/long.gif@gif", timeout: .seconds(540))
                #expect(reply.status == 200, "long: \(reply.text)")
                #expect(ImageHeader.frameCount(of: reply.body, format: .gif) == 100)
                #expect(ImageHeader.size(of: reply.body, format: .gif) == PixelSize(width: 300, height: 300))
            }
            try await group.waitForAll()
        }
        let peak = try Self.peakResidentBytes(of: server.pid)
        // Held whole, the long animation's decoded frames alone are 400 MB; streamed, the process
        // stays near its idle size.
        #expect(peak < 300 << 20, "peak RSS \(peak >> 20) MB")
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
    }
}
