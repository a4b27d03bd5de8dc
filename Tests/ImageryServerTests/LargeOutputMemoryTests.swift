import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport
import NIOCore
import Testing

/// The server's own peak memory (VmHWM of its process) while requests that each enlarge a photo
/// many times over (one also blurs it) and ask for PNG arrive together: the pixel budget covers each one's
/// decode, processing and encode, so they take turns instead of holding an image each at once.
@Suite(.timeLimit(.minutes(10)))
struct LargeOutputMemoryTests {
    static let requests = 4
    /// The rocket enlarged into 2000 x 2000: 2000 x 1334, 10.7 MB a bitmap (a debug build takes
    /// seconds over each).
    static let outputPixels = 2000 * 1334
    /// Room for one request's decode, or one image being encoded, not two.
    static let budget = 4_000_000

    @Test(
        "Four enlargements to 2.7 MP, one blurred, PNG out, at once: each gets 200 or 503, and the peak stays near one request's images above idle",
        .tags(.integration), .offUnderSanitizer,
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func largeOutputsTakeTurns() async throws {
        let origin = try TestHTTPServer { request in
            request.path.hasPrefix("/photo") ? .ok(Fixtures.rocket) : .status(404)
        }
        defer { origin.stop() }
        let server = try ServerProcess.start([
            "--port", "0", "--allow-loopback-sources", "--max-decoding-pixels", String(Self.budget), "--request-timeout", "600",
        ])
        defer { server.kill() }
        let port = try await server.port()
        let idle = try AnimationMemoryTests.peakResidentBytes(of: server.pid)

        let statuses = try await withThrowingTaskGroup(of: (Int, Int, [UInt8]).self) { group in
            for index in 0..<Self.requests {
                group.addTask {
                    // One of them blurred, so a processing run takes its turn too: a blur's copy
                    // costs what any sigma's does, and its CPU in a debug build is most of the
                    // test's, so the others are only enlarged (each its own source).
                    let blur = index == 0 ? "bl:0.5/" : ""
                    let path = "/unsafe/\(blur)rs:fit:2000:2000:1/plain/http://127.0.0.1:\(origin.port)/photo\(index).jpg@png"
                    let reply = try await ServerHarness.get(port: port, path, timeout: .seconds(420))
                    return (index, reply.status, reply.body)
                }
            }
            var statuses: [Int] = []
            for try await (index, status, body) in group {
                statuses.append(status)
                #expect([200, 503].contains(status), "request \(index): \(status)")
                if status == 200 {
                    #expect(ImageHeader.size(of: body, format: .png) == PixelSize(width: 2000, height: 1334), "request \(index)")
                }
            }
            return statuses
        }
        #expect(statuses.contains(200))
        let peak = try AnimationMemoryTests.peakResidentBytes(of: server.pid)
        // At once, the four would hold their outputs, the resampler's and the blur's copies and
        // the encoder's RGB copies. In turns, the peak is one request's output, its source and the
        // encoder's buffers, plus what serving requests costs a debug build.
        let added = (peak - idle) >> 20
        #expect(added < (7 * Self.outputPixels * 4) >> 20, "peak RSS \(peak >> 20) MB, \(added) MB above idle")
        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
    }
}
