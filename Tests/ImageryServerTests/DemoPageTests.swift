import Foundation
import Imagery
import ImageryGallery
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// `imagery-server --demo`: the page at `/` and every image on it, over a real socket, and in a
/// real headless browser when the machine has one (`.ci/run` installs Chromium, its driver and
/// selenium).
@Suite("imagery-server --demo", .timeLimit(.minutes(10)))
struct DemoPageTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"

    /// A server as `--demo` configures it, signing its own page's URLs with a key.
    static func demoServer() async throws -> ServerHarness {
        let gallery = try #require(Gallery.path, "the embedded gallery is part of every build")
        return try await ServerHarness.start {
            $0.demoRoot = gallery
            $0.localRoot = gallery
            $0.keyHex = key
            $0.saltHex = salt
        }
    }

    @Test("The page lists every gallery photo in four variants, each a signed URL the server serves")
    func pageServesEveryImage() async throws {
        let server = try await Self.demoServer()
        defer { server.cancel() }
        let page = try await server.get("/")
        #expect(page.status == 200)
        #expect(page.header("content-type") == "text/html; charset=utf-8")
        let sources = page.text.matches(of: /<img src="([^"]+)"/).map { String($0.output.1) }
        #expect(sources.count == Gallery.imageNames.count * DemoPage.variants.count)
        #expect(Gallery.imageNames.count == 15)
        for source in sources {
            let reply = try await server.get(source, headers: [("Accept", "image/png,image/jpeg")])
            #expect(reply.status == 200, "\(source): \(reply.text)")
            let image = try ServerHarness.image(reply)
            #expect(max(image.width, image.height) <= 240 && min(image.width, image.height) > 0)
        }
        // The circle's corners are transparent, so it comes as PNG when WebP is not accepted.
        let circle = try #require(sources.first { $0.contains("circle:1") })
        let reply = try await server.get(circle, headers: [("Accept", "image/png,image/jpeg")])
        #expect(ServerHarness.expectImage(reply, .png)?.pixel(x: 0, y: 0).alpha == 0)
        // The page's signatures are the server's own: the same path unsigned is refused.
        let unsigned = "/insecure/" + source(of: circle)
        #expect(try await server.get(unsigned).status == 403)
    }

    @Test("Without --demo there is no page at /")
    func noPageWithoutDemo() async throws {
        let server = try await ServerHarness.start()
        defer { server.cancel() }
        let reply = try await server.get("/")
        #expect(reply.status == 400 || reply.status == 404)
        #expect(!reply.text.contains("<html"))
    }

    /// The executable as an operator starts it, in a process of its own: in a full run a server
    /// inside the test process answers behind every suite's decodes on the shared heavy-work
    /// threads, and CI's run on a76e119 saw 12 of the 60 images still loading after 200 s.
    @Test("In headless Chromium every image on the page loads (naturalWidth > 0)", .tags(.integration), .offUnderSanitizer,
          .enabled(if: CIRun.runs(needing: HeadlessBrowser.isAvailable && ChildProcess.executable("imagery-server") != nil),
                   "needs /usr/bin/chromium, /usr/bin/chromedriver, python3's selenium (.ci/run installs them) and the imagery-server executable"))
    func browserLoadsEveryImage() async throws {
        try #require(HeadlessBrowser.isAvailable, Comment(rawValue: CIRun.missing("Chromium, chromedriver or selenium")))
        try #require(ChildProcess.executable("imagery-server") != nil, "the imagery-server executable is built beside the tests")
        let server = try ServerProcess.start(["--demo", "--port", "0"], environment: ["IMGPROXY_KEY": Self.key, "IMGPROXY_SALT": Self.salt])
        defer { server.kill() }
        let report = try await HeadlessBrowser.check("http://127.0.0.1:\(try await server.port())/")
        if report.exitCode == 2, report.output.contains("could not start chromium"), !CIRun.isActive {
            // Every start failed, each with a fresh profile: on a developer's machine that is a
            // known issue of Debian's chromedriver; under CI=true it fails the run below.
            withKnownIssue("chromedriver could not start on this machine", isIntermittent: true) {
                Issue.record("\(report.output)")
            }
            return
        }
        #expect(report.exitCode == 0, "\(report.output)")
        let summary = try JSONDecoder().decode(HeadlessBrowser.Summary.self, from: Data(report.output.utf8))
        #expect(summary.images == Gallery.imageNames.count * DemoPage.variants.count)
        #expect(summary.loaded == summary.images)
        #expect(summary.broken.isEmpty)
    }

    /// `/{signature}/{rest}` → `rest`.
    private func source(of path: String) -> String {
        String(path.dropFirst().drop { $0 != "/" }.dropFirst())
    }
}

/// `scripts/check-demo-page.py`, run as a child process to its end.
enum HeadlessBrowser {
    struct Summary: Decodable {
        var images: Int
        var loaded: Int
        var broken: [String]
    }

    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/check-demo-page.py").path

    static let isAvailable: Bool = {
        let files = ["/usr/bin/chromium", "/usr/bin/chromedriver"]
        guard files.allSatisfy(FileManager.default.isExecutableFile(atPath:)),
              FileManager.default.fileExists(atPath: script) else { return false }
        return ChildProcess.pythonImports("selenium")
    }()

    /// Runs the script on `url`; it bounds its own waits (the page's HTML: 60 s; its images: while
    /// they keep arriving, 120 s without one ends it, 420 s at most).
    static func check(_ url: String) async throws -> (exitCode: Int32, output: String) {
        try await run([url])
    }

    /// What each page's scripts did (the script's `--scripts`): it bounds each page's load to 200 s.
    struct ScriptReport: Decodable {
        struct Page: Decodable {
            var url: String
            /// The document read: `url` once it loaded (`about:blank` if it never did).
            var href: String
            var complete: Bool
            var root: String?
            /// The markers a script set: `data-ran` (a script element), `data-onload` (a handler).
            var ran: [String]
        }

        var pages: [Page]
    }

    static func scripts(_ urls: [String]) async throws -> (exitCode: Int32, output: String) {
        try await run(["--scripts"] + urls)
    }

    /// Each of `urls` opened as the page, in order, every one checked to have loaded as itself;
    /// `nil` (a known issue) where chromedriver cannot start on a developer's machine.
    static func openedPages(_ urls: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> [ScriptReport.Page]? {
        let report = try await scripts(urls)
        if report.exitCode == 2, report.output.contains("could not start chromium"), !CIRun.isActive {
            withKnownIssue("chromedriver could not start on this machine", isIntermittent: true) {
                Issue.record("\(report.output)")
            }
            return nil
        }
        #expect(report.exitCode == 0, "\(report.output)", sourceLocation: sourceLocation)
        let pages = try JSONDecoder().decode(ScriptReport.self, from: Data(report.output.utf8)).pages
        try #require(pages.count == urls.count, "\(report.output)", sourceLocation: sourceLocation)
        for (page, url) in zip(pages, urls) {
            #expect(page.href == url && page.complete && page.root == "svg", "the browser read another document than \(url): \(report.output)", sourceLocation: sourceLocation)
        }
        return pages
    }

    private static func run(_ arguments: [String]) async throws -> (exitCode: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus); exited.continuation.finish() }
        try process.run()
        // The script prints one short line, far below a pipe's buffer, so reading after the
        // exit cannot deadlock.
        // A cancelled test (its suite's time limit) stops the browser, which ends the wait.
        let status = await withTaskCancellationHandler {
            var statuses = exited.stream.makeAsyncIterator()
            return await statuses.next() ?? -1
        } onCancel: {
            process.terminate()
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (status, text.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
