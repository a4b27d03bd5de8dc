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
        let control = "http://127.0.0.1:\(origin.port)/control.svg"
        let path = ServerTests.plain(origin, "/drawing.svg", options: "w:20")
        let (sanitizing, sending) = try await Self.warmedServers(sanitized: path, unsanitized: path)
        defer { sanitizing.cancel(); sending.cancel() }
        let urls = [control, "http://127.0.0.1:\(sanitizing.port)\(path)", "http://127.0.0.1:\(sending.port)\(path)"]

        guard let pages = try await HeadlessBrowser.openedPages(urls) else { return }
        // The control proves the check sees a script that runs.
        #expect(Set(pages[0].ran) == ["data-ran", "data-onload"], "\(pages[0])")
        for page in pages.dropFirst() {
            #expect(page.ran.isEmpty, "\(page)")
        }
    }

    /// A server that sanitizes SVG and one that sends it as it is (`--sanitize-svg=false`), each
    /// asked for its path once first, as the browser asks, so that the browser's visit is a
    /// response-cache hit: in a full run the answer waits behind every suite's decodes, longer
    /// than a page load.
    static func warmedServers(sanitized: String, unsanitized: String) async throws -> (sanitizing: ServerHarness, sending: ServerHarness) {
        let sanitizing = try await ServerHarness.start { $0.allowLoopbackSources = true }
        let sending: ServerHarness
        do {
            sending = try await ServerHarness.start {
                $0.allowLoopbackSources = true
                $0.svg.sanitizes = false
            }
        } catch {
            sanitizing.cancel()
            throw error
        }
        do {
            async let first = ServerHarness.get(port: sanitizing.port, sanitized, headers: [("Accept", navigationAccept)], timeout: .seconds(420))
            async let second = ServerHarness.get(port: sending.port, unsanitized, headers: [("Accept", navigationAccept)], timeout: .seconds(420))
            for warm in try await [first, second] {
                ServerTests.expectSVGAnswer(warm)
            }
        } catch {
            sanitizing.cancel()
            sending.cancel()
            throw error
        }
        return (sanitizing, sending)
    }

    /// A document with each way out that the sanitizer once let through, every one pointing at
    /// `collector` under `/page/`: text after a child of `<style>`, CSS escapes that spell
    /// `url(` and `@import` in style elements, attributes and animation values.
    static func bypassSVG(collector: Int, page: String) -> [UInt8] {
        let base = "http://127.0.0.1:\(collector)/\(page)"
        return Array(#"""
        <svg xmlns="http://www.w3.org/2000/svg" width="40" height="30">
        <style><g/>@import url(\#(base)/import.css);</style>
        <style>@\69mport url(\#(base)/escaped-import.css);</style>
        <style>svg{background-image:u\72l(\#(base)/escaped-background.png)}</style>
        <rect width="40" height="30" fill="#3a7" mask="u\72l(\#(base)/mask.svg#m)" style="filter:u\72l(\#(base)/filter.svg#f)">
        <animate attributeName="mask" values="u\72l(\#(base)/animate.svg#m)" dur="1s" fill="freeze"/>
        <set attributeName="clip-path" to="u\72l(\#(base)/set.svg#c)"/>
        </rect>
        </svg>
        """#.utf8)
    }

    @Test("Each sanitizer bypass fetches nothing in Chromium, sanitized or sent as it is (the policy's sandbox); opened from its origin, it fetches",
          .tags(.integration), .offUnderSanitizer,
          .enabled(if: CIRun.runs(needing: HeadlessBrowser.isAvailable), "needs /usr/bin/chromium, /usr/bin/chromedriver and python3's selenium (.ci/run installs them)"))
    func bypassesFetchNothing() async throws {
        try #require(HeadlessBrowser.isAvailable, Comment(rawValue: CIRun.missing("Chromium, chromedriver or selenium")))
        // The collector answers whatever it is asked for, so that a fetch that got through
        // would load (and be counted) rather than fail.
        let collector = try TestHTTPServer { request in
            let type = request.path.hasSuffix(".css") ? "text/css" : request.path.hasSuffix(".png") ? "image/png" : "image/svg+xml"
            let body = type == "image/svg+xml" ? Array(#"<svg xmlns="http://www.w3.org/2000/svg"><mask id="m"/><filter id="f"/><clipPath id="c"/></svg>"#.utf8) : []
            return .headers(200, [(name: "Content-Type", value: type), (name: "Cache-Control", value: "no-store")], body)
        }
        defer { collector.stop() }
        let documents = ["sanitized", "unsanitized", "control"].reduce(into: [String: [UInt8]]()) { documents, page in
            documents["/\(page).svg"] = Self.bypassSVG(collector: collector.port, page: page)
        }
        let origin = try TestHTTPServer { request in
            documents[request.path].map { .headers(200, [(name: "Content-Type", value: "image/svg+xml")], $0) } ?? .status(404)
        }
        defer { origin.stop() }
        let sanitized = ServerTests.plain(origin, "/sanitized.svg", options: "w:20")
        let unsanitized = ServerTests.plain(origin, "/unsanitized.svg", options: "w:20")
        let (sanitizing, sending) = try await Self.warmedServers(sanitized: sanitized, unsanitized: unsanitized)
        defer { sanitizing.cancel(); sending.cancel() }

        // The control last: by the time its fetches arrive, the others' would have.
        let urls = ["http://127.0.0.1:\(sanitizing.port)\(sanitized)", "http://127.0.0.1:\(sending.port)\(unsanitized)", "http://127.0.0.1:\(origin.port)/control.svg"]
        guard try await HeadlessBrowser.openedPages(urls) != nil else { return }
        // The control proves these documents fetch in this browser: the style child's import
        // first of all, a style sheet the document's load waited for.
        #expect(collector.hits("/control/import.css") > 0, "opened from its origin, the document's @import after a child of <style> was never fetched: \(collector.events.counts)")
        let fetched = collector.events.counts.keys.filter { $0.hasPrefix("request:/") && !$0.hasPrefix("request:/control/") }
        #expect(fetched.isEmpty, "fetched through the server: \(fetched.sorted())")
    }
}

