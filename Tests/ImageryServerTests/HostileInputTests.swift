import Foundation
import ImageryHTTPSurface
import ImageryTestSupport
import Testing

/// Nothing a client or an origin sends may stop the server: a Swift trap ends the process and
/// every request in flight on it. The inputs that did (issue 45) are answered here, through the
/// router in this process (``HTTPSurface``); then every header the server reads and every
/// numeric option get a thousand extreme values each (``PropertyBatch``), in a process of their
/// own, and anything wrong with an answer is listed with its input.
// Ten minutes: the batches run at a low priority, after whatever else the run has to do.
@Suite("Nothing a client or an origin sends stops the server", .timeLimit(.minutes(10)))
struct HostileInputTests {
    /// An origin that says when its image was modified and lets it be stored for a minute.
    static func cached(_ path: String = "/insecure/rs:fit:32:32/plain/SHARED@png") -> HostileExchange {
        var exchange = HostileExchange(path: path)
        exchange.originHeaders = [("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"), ("Cache-Control", "public, max-age=60")]
        return exchange
    }

    @Test("Each input that stopped the server is answered: a year past 9999, an age past Int, a DPR of 1e-20, a zoom of 1e-300")
    func reportedCrashes() async throws {
        try await HTTPSurface.run { surface in
            var conditional = Self.cached("/insecure/rs:fit:32:32/plain/ORIGIN@png")
            conditional.headers = [("If-Modified-Since", "Sun, 06 Nov 999999999999 08:49:37 GMT")]
            conditional.later = 0
            var longAge = HostileExchange(path: "/insecure/rs:fit:32:32/plain/ORIGIN@png")
            longAge.originHeaders = [("Cache-Control", "max-age=9223372036854775807")]
            longAge.later = 2
            var negativeAge = HostileExchange(path: "/insecure/rs:fit:32:32/plain/ORIGIN@png")
            negativeAge.originHeaders = [("Cache-Control", "s-maxage=60, max-age=-9223372036854775808")]
            negativeAge.later = 2
            var lastModified = HostileExchange(path: "/insecure/rs:fit:32:32/plain/ORIGIN@png")
            lastModified.originHeaders = [("Last-Modified", "Sun, 06 Nov 999999999999 08:49:37 GMT"), ("Expires", "Sun Nov  6 08:49:37 -9223372036854775808")]
            lastModified.later = 1
            var hints = HostileExchange(path: "/insecure/rs:fit/plain/LOCAL@png")
            hints.headers = [("DPR", "1e-20"), ("Width", "600")]
            let zoom = HostileExchange(path: "/insecure/z:1e-300/rs:fit:100:100/plain/LOCAL@jpg")
            let zoomTiny = HostileExchange(path: "/insecure/z:0.001/rs:fit:1:1/plain/LOCAL@jpg")
            let dpr = HostileExchange(path: "/insecure/dpr:4.9e-324/rs:fit:100:100/plain/LOCAL@jpg")
            let problems = try await surface.ask([conditional, longAge, negativeAge, lastModified, hints, zoom, zoomTiny, dpr])
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n\n"))")
            // The URL's values past their floors are refused by name; a hint past its floor is ignored.
            #expect(try await surface.answer(zoom).status == 400)
            #expect(try await surface.answer(dpr).status == 400)
            #expect(try await surface.answer(hints).status == 200)
            #expect(try await surface.answer(zoomTiny).status == 200)
        }
    }

    @Test("The HTTP fuzz target's seeds and findings replay cleanly in a process of its own", .tags(.integration), .offUnderSanitizer,
          .enabled(if: ChildProcess.executable("imagery-http-fuzz") != nil, "the imagery-http-fuzz executable is not beside the test bundle"))
    func fuzzSeedsReplay() async throws {
        let (seeds, findings) = try FuzzInputs.files(seeds: "http-seeds", findings: "http-")
        #expect(seeds.count >= 10)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-http-replay-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        let replay = try await ChildProcess.run(try #require(ChildProcess.executable("imagery-http-fuzz")), seeds + findings, output: output.path)
        let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(replay.exitCode == 0, "\(printed)")
        #expect(printed.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == seeds.count + findings.count, "\(printed)")
    }

    /// Each batch in a process of its own (`imagery-http-fuzz --property`), which drives its own
    /// server in process, one batch at a time and at a low priority: its thousands of renders
    /// neither wait behind the other suites' work nor make it wait, and a trap fails this test
    /// with the batch named instead of ending the run. Under ThreadSanitizer a thousand values each would take many minutes; the reported
    /// inputs above run there.
    @Test("Every request header and origin header the server reads, and every numeric argument of every option, a thousand extreme values each: all answered",
          .tags(.integration), .offUnderSanitizer,
          .enabled(if: ChildProcess.executable("imagery-http-fuzz") != nil, "the imagery-http-fuzz executable is not beside the test bundle"),
          .serialized, arguments: PropertyBatch.allCases)
    func thousandValuesEach(_ batch: PropertyBatch) async throws {
        #expect(batch.targets.count >= (batch == .numericOptions ? 50 : 6), "\(batch.targets)")
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-http-\(batch.rawValue)-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        let run = try await ChildProcess.run(try #require(ChildProcess.executable("imagery-http-fuzz")), ["--property", batch.rawValue], output: output.path)
        let printed = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        let expected = batch.targets.count * PropertyBatch.valuesEach
        #expect(run.exitCode == 0 && printed.hasPrefix("checked \(expected) exchanges"), "exit \(run.exitCode): \(printed.prefix(4000))")
    }
}
