import Foundation
import HTTPTypes
import Imagery
@testable import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// The request path through the server's preflight, as the fuzz target drives it; the parts of
/// the URL model are tested on their own in ImageryImgproxyTests.
@Suite("imgproxy paths through the server's preflight", .timeLimit(.minutes(10)))
struct URLParsingTests {
    @Test("The fuzz target's seeds and findings replay cleanly: each path is served or refused with a 4xx that names no local path", .tags(.integration), .offUnderSanitizer,
          .enabled(if: ChildProcess.executable("imagery-url-fuzz") != nil, "the imagery-url-fuzz executable is not beside the test bundle"))
    func fuzzSeedsReplay() async throws {
        let (seeds, findings) = try FuzzInputs.files(seeds: "url-seeds", findings: "url-")
        #expect(seeds.count >= 10)
        let replay = try await ChildProcess.run(try #require(ChildProcess.executable("imagery-url-fuzz")), seeds + findings)
        #expect(replay.exitCode == 0)
    }

    /// What a random segment is known to be.
    enum Drawn { case valid, invalid, unknown }

    @Test("20,000 random paths drawn from the option table (every option, by any name), presets and junk: valid ones are planned, invalid ones refused with 400, none traps")
    func randomPathsNeverTrap() throws {
        var random = SplitMix64(state: 0x1DEA_5EED)
        let table = ImgproxyOptions.table.all
        let names = table.flatMap(\.names) + ["zz", "", "pr", "preset"]
        let junk = [
            "", "0", "1", "-1", "fit", "fill", "force", "auto", "fill-down", "sm", "fp", "ce", "0.5", "1e308", "-1e308", "nan", "inf",
            "9223372036854775807", "-9223372036854775808", "99999999999999999999", "ffffff", "png", "webp", "%00", "..", "@", ".", "thumb",
        ]
        let presets = ["thumb", "tiny", "square"]
        var configuration = ServerConfiguration()
        configuration.allowedSourcePrefixes = ["http://a.test/"]
        configuration.allowSecurityOptions = true
        configuration.presets = "default=q:70,thumb=rs:fill:100:100/g:sm,tiny=w:16/f:png,square=c:1:1/ex:1:so"
        let preflight = try RequestPreflight(configuration: configuration, resolved: configuration.resolve())
        var counts: [Drawn: Int] = [:]
        var drawn = Set<String>()
        for _ in 0..<20_000 {
            var segments: [String] = []
            var outcome = Drawn.valid
            for _ in 0..<random.number(0...5) {
                switch random.number(0...9) {
                case 0..<6:
                    // An option of the table by one of its names, with arguments its generator says are valid.
                    let option = table.randomElement(using: &random)!
                    guard let generate = ImgproxyArgumentGenerators.processing[option.names[0]] else {
                        Issue.record("\(option.names[0]) has no argument generator")
                        continue
                    }
                    drawn.insert(option.names[0])
                    segments.append(([option.names.randomElement(using: &random)!] + generate(&random)).joined(separator: ":"))
                case 6:
                    // Configured presets, by pr or preset, one or more at once.
                    let named = (0..<random.number(1...3)).map { _ in presets.randomElement(using: &random)! }
                    segments.append(([random.pick(["pr", "preset"])] + named).joined(separator: ":"))
                    drawn.insert("preset")
                case 7:
                    segments.append(random.pick(["pr:", "pr:nope", "preset:thumb:nope", "zz:1", "rs:stretch"]))
                    outcome = .invalid
                default:
                    let arguments = (0..<random.number(0...5)).map { _ in junk.randomElement(using: &random)! }
                    segments.append(([names.randomElement(using: &random)!] + arguments).joined(separator: ":"))
                    if outcome == .valid { outcome = .unknown }
                }
            }
            let path = "/_/" + (segments + ["plain", "http://a.test/x.jpg"]).joined(separator: "/") + (random.chance(0.5) ? "@png" : "")
            counts[outcome, default: 0] += 1
            do throws(ServerError) {
                _ = try preflight.plan(for: path)
                #expect(outcome != .invalid, "\(path) was planned")
            } catch {
                #expect(error.status == .badRequest, "\(path): \(error.message)")
                #expect(outcome != .valid, "\(path) was refused: \(error.message)")
            }
        }
        #expect(drawn == Set(table.map { $0.names[0] } + ["preset"]), "never drawn: \(Set(table.map { $0.names[0] }).subtracting(drawn).sorted())")
        #expect(counts[.valid, default: 0] > 5_000 && counts[.invalid, default: 0] > 1_000 && counts[.unknown, default: 0] > 1_000)
    }
}
