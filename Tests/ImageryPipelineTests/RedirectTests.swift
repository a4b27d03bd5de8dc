import Foundation
@testable import Imagery
import ImageryTestSupport
import Testing

/// Redirects are followed a few times, to http(s) only, and a loop is one short chain and a
/// permanent, typed error: never retried.
@Suite(.timeLimit(.minutes(10)))
struct RedirectTests {
    func load(_ url: URL) async -> DataLoadingError? {
        let loader = RetryingDataLoader(wrapping: DataLoader())   // retries what is transient
        do {
            _ = try await loader.loadData(for: .url(url)) { _ in }
            return nil
        } catch {
            return error
        }
    }

    @Test("A redirect loop makes one chain of requests and fails as a redirect, not a retryable error")
    func loop() async throws {
        let server = try TestHTTPServer { request in .redirect(request.path == "/a.jpg" ? "/b.jpg" : "/a.jpg") }
        defer { server.stop() }
        let url = server.url("/a.jpg")
        let error = try #require(await load(url))
        #expect(error == .redirectRefused(source: url.absoluteString, detail: "a redirect loop after 1 redirects"))
        #expect(!error.isTransient)
        #expect(server.events.count("request") == 2)   // /a, /b; the way back to /a is not taken
    }

    @Test("A chain longer than five redirects stops after the fifth, at six requests")
    func tooMany() async throws {
        let server = try TestHTTPServer { request in
            let step = Int(request.path.dropFirst(2).prefix { $0.isNumber }) ?? 0
            return .redirect("/r\(step + 1).jpg")
        }
        defer { server.stop() }
        let url = server.url("/r0.jpg")
        #expect(await load(url) == .redirectRefused(source: url.absoluteString, detail: "more than 5 redirects"))
        #expect(server.events.count("request") == 6)
    }

    @Test("The redirect rule: http(s) only, no loop, at most the maximum")
    func rule() {
        let start = URL(string: "http://127.0.0.1:1/a.jpg")!
        let next = URL(string: "https://127.0.0.1:1/b.jpg")!
        #expect(RedirectRule.refusal(to: next, after: [start], maximum: 5) == nil)
        #expect(RedirectRule.refusal(to: URL(string: "file:///etc/passwd")!, after: [start], maximum: 5)
            == "to a file URL (only http and https are followed)")
        #expect(RedirectRule.refusal(to: URL(string: "gopher://127.0.0.1:1/")!, after: [start], maximum: 5)
            == "to a gopher URL (only http and https are followed)")
        #expect(RedirectRule.refusal(to: start, after: [start, next], maximum: 5) == "a redirect loop after 1 redirects")
        let six = (0...5).map { URL(string: "http://127.0.0.1:1/\($0).jpg")! }
        #expect(RedirectRule.refusal(to: next, after: six, maximum: 5) == "more than 5 redirects")
        #expect(RedirectRule.refusal(to: nil, after: [start], maximum: 5) == "to no URL")
    }

    @Test("A redirect to a file URL never reads the file")
    func otherScheme() async throws {
        // FoundationNetworking's transport turns the location into a path on the same server
        // before the delegate sees it, so the refusal here is the loop; on Apple platforms it is
        // the scheme. Either way the chain ends, typed and permanent, and no file is read.
        let server = try TestHTTPServer { _ in .redirect("file:///etc/passwd") }
        defer { server.stop() }
        let error = await load(server.url("/leak.jpg"))
        #expect(error?.kind == "redirect", "\(String(describing: error))")
        #expect(server.events.count("request") <= 2)
    }

    @Test("A short chain is followed to the image")
    func followed() async throws {
        let server = try TestHTTPServer { request in request.path == "/final.jpg" ? .ok(Fixtures.rocket) : .redirect("/final.jpg") }
        defer { server.stop() }
        #expect(await load(server.url("/start.jpg")) == nil)
        #expect(server.events.count("request") == 2)
    }
}
