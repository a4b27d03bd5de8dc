import Foundation
import HTTPTypes
import Imagery
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// The request path through the server's preflight, as the fuzz target drives it; the parts of
/// the URL model are tested on their own in ImageryImgproxyTests.
@Suite("imgproxy paths through the server's preflight", .timeLimit(.minutes(5)))
struct URLParsingTests {
    @Test("The fuzz target's seeds and findings replay cleanly: each path is served or refused with a 4xx that names no local path", .tags(.integration), .offUnderSanitizer,
          .enabled(if: ChildProcess.executable("imagery-url-fuzz") != nil, "the imagery-url-fuzz executable is not beside the test bundle"))
    func fuzzSeedsReplay() async throws {
        let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz")
        let seeds = try FileManager.default.contentsOfDirectory(atPath: fuzz.appendingPathComponent("url-seeds").path)
            .map { fuzz.appendingPathComponent("url-seeds/\($0)").path }
        let findings = ((try? FileManager.default.contentsOfDirectory(atPath: fuzz.appendingPathComponent("findings").path)) ?? [])
            .filter { $0.hasPrefix("url-") }.map { fuzz.appendingPathComponent("findings/\($0)").path }
        #expect(seeds.count >= 10)
        let replay = try await ChildProcess.run(try #require(ChildProcess.executable("imagery-url-fuzz")), seeds + findings)
        #expect(replay.exitCode == 0)
    }

    @Test("20,000 random paths built from option names, numbers and junk: each is planned or refused with 400, none traps")
    func randomPathsNeverTrap() throws {
        var random = SplitMix64(state: 0x1DEA_5EED)
        let names = ["rs", "s", "rt", "w", "h", "el", "ex", "g", "dpr", "c", "rot", "bl", "sh", "bg", "q", "f", "cb", "circle", "resize", "zz", ""]
        let values = [
            "", "0", "1", "-1", "fit", "fill", "force", "auto", "fill-down", "sm", "fp", "ce", "0.5", "1e308", "-1e308", "nan", "inf",
            "9223372036854775807", "-9223372036854775808", "99999999999999999999", "ffffff", "png", "webp", "%00", "..", "@", ".",
        ]
        var configuration = ServerConfiguration()
        configuration.allowedSourcePrefixes = ["http://a.test/"]
        let preflight = try RequestPreflight(configuration: configuration)
        var refused = 0
        for _ in 0..<20_000 {
            var segments: [String] = []
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                let arguments = (0..<Int.random(in: 0...5, using: &random)).map { _ in values.randomElement(using: &random)! }
                segments.append(([names.randomElement(using: &random)!] + arguments).joined(separator: ":"))
            }
            let path = "/_/" + segments.joined(separator: "/") + "/plain/http://a.test/x.jpg" + (Bool.random(using: &random) ? "@png" : "")
            do throws(ServerError) {
                _ = try preflight.plan(for: path)
            } catch {
                refused += 1
                #expect(error.status == .badRequest)
            }
        }
        #expect(refused > 1_000 && refused < 20_000)   // both outcomes were exercised
    }
}
