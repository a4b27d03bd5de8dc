import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// The server's own peak memory (VmHWM of its process) through animation bombs and a large
/// animation that fits the limits.
@Suite(.timeLimit(.minutes(4)))
struct AnimationMemoryTests {
    /// The process's peak resident set so far, from /proc: its own, since exec gave it a new one.
    static func peakResidentBytes(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes << 10
    }

    @Test(
        "Bombs of 3,000 frames are 422 in any format; 12 frames on a 600x600 screen are served; the server's peak RSS stays under 600 MB",
        .tags(.integration), .offUnderSanitizer,
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func bombsStayWithinMemory() async throws {
        let bomb = Fixtures.bytes("gif_anim_bomb_2000x2000_3000f.gif"), fitting = Fixtures.gifBomb(frames: 12, size: 600)
        let origin = try TestHTTPServer { request in
            switch request.path {
            case "/bomb.gif": .ok(bomb)
            case "/fitting.gif": .ok(fitting)
            default: .status(404)
            }
        }
        defer { origin.stop() }
        let server = try ServerProcess.start(["--port", "0", "--allow-loopback-sources"])
        defer { server.kill() }
        let port = try await server.port()
        let source = "plain/http://127.0.0.1:\(origin.port)"

        try await withThrowingTaskGroup(of: Void.self) { group in
            for format in ["gif", "png", "jpg"] {
                group.addTask {
                    let reply = try await Cluster.get(port: port, "/unsafe/rs:fit:300:300/\(source)/bomb.gif@\(format)")
                    #expect(reply.status == 422, "\(format): \(reply.text)")
                }
            }
            for size in [200, 300] {
                group.addTask {
                    let reply = try await Cluster.get(port: port, "/unsafe/rs:fit:\(size):\(size)/\(source)/fitting.gif@gif")
                    #expect(reply.status == 200, "\(size): \(reply.text)")
                    let frames = try ImageDecoder().decodeAnimation(reply.body, resize: nil, allowsUpscaling: false, options: DecodingOptions())
                    #expect(frames?.frames.count == 12 && frames?.size == PixelSize(width: size, height: size))
                }
            }
            try await group.waitForAll()
        }
        let peak = try Self.peakResidentBytes(of: server.pid)
        #expect(peak < 600 << 20, "peak RSS \(peak >> 20) MB")
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
    }
}
