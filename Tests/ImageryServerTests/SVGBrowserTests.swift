import Foundation
import Imagery
@testable import ImageryServer
import ImageryTestSupport
import NIOCore
import Testing

/// Served SVG in a real browser (headless Chromium, through `scripts/check-demo-page.py
/// --scripts`): a document opened as the page is where its scripts would run.
// A suite of its own for its time limit: in a full run its servers' answers wait behind every
// suite's decodes on the shared heavy-work threads.
@Suite("imagery-server's SVG answers in headless Chromium", .timeLimit(.minutes(10)))
struct SVGBrowserTests {
    /// What Chromium sends with a navigation, so that warming the response cache keys as its visit does.
    static let navigationAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"

    @Test("No script of a served SVG runs, sanitized or not (the policy); opened from its origin, both run",
          .tags(.integration), .offUnderSanitizer,
          .enabled(if: CIRun.runs(needing: HeadlessBrowser.isAvailable), "needs /usr/bin/chromium, /usr/bin/chromedriver and python3's selenium (.ci/run installs them)"))
    func svgScriptsDoNotRunInABrowser() async throws {
        try #require(HeadlessBrowser.isAvailable, Comment(rawValue: CIRun.missing("Chromium, chromedriver or selenium")))
        let origin = try ServerTests.svgOrigin()
        defer { origin.stop() }
        let sanitizing = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { sanitizing.cancel() }
        let sending = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.svg.sanitizes = false
        }
        defer { sending.cancel() }
        let control = "http://127.0.0.1:\(origin.port)/control.svg"
        let path = ServerTests.plain(origin, "/drawing.svg", options: "w:20")
        let urls = [control, "http://127.0.0.1:\(sanitizing.port)\(path)", "http://127.0.0.1:\(sending.port)\(path)"]
        // Asked once first, as the browser asks, so that the browser's visit is a response-cache
        // hit: in a full run the answer waits behind every suite's decodes, longer than a page load.
        async let first = ServerHarness.get(port: sanitizing.port, path, headers: [("Accept", Self.navigationAccept)], timeout: .seconds(420))
        async let second = ServerHarness.get(port: sending.port, path, headers: [("Accept", Self.navigationAccept)], timeout: .seconds(420))
        for warm in try await [first, second] {
            ServerTests.expectSVGAnswer(warm)
        }

        let report = try await HeadlessBrowser.scripts(urls)
        if report.exitCode == 2, report.output.contains("could not start chromium"), !CIRun.isActive {
            withKnownIssue("chromedriver could not start on this machine", isIntermittent: true) {
                Issue.record("\(report.output)")
            }
            return
        }
        #expect(report.exitCode == 0, "\(report.output)")
        let pages = try JSONDecoder().decode(HeadlessBrowser.ScriptReport.self, from: Data(report.output.utf8)).pages
        try #require(pages.count == 3, "\(report.output)")
        for (page, url) in zip(pages, urls) {
            #expect(page.href == url && page.complete, "the browser read another document than \(url): \(report.output)")
        }
        // The control proves the check sees a script that runs.
        #expect(pages[0].root == "svg" && Set(pages[0].ran) == ["data-ran", "data-onload"], "\(report.output)")
        for page in pages.dropFirst() {
            #expect(page.root == "svg" && page.ran.isEmpty, "\(report.output)")
        }
    }
}
