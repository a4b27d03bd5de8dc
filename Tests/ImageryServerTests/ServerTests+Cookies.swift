import Foundation
import Hummingbird
import Imagery
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// Cookie passthrough (issue 32): a client's cookies reach the source in their scope, and an
/// answer made with them reaches no other client, from any tier.
extension ServerTests {
    /// An origin that serves each user their own image by the session cookie, and 403 without one.
    static func sessionOrigin(address: String = "127.0.0.1") throws -> TestHTTPServer {
        try TestHTTPServer(address: address) { request in
            switch request.headers["cookie"] {
            case "session=a": .ok(Fixtures.rocket)   // 640×427
            case "session=b": .ok(Fixtures.logo)     // 500×500
            default: .status(403)
            }
        }
    }

    @Test("Two clients with different cookies each get their own image, again and again; nothing reaches a shared tier or a shared cache in front")
    func cookiesKeepClientsApart() async throws {
        let origin = try Self.sessionOrigin()
        defer { origin.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-cookies-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.cookiePassthrough.isEnabled = true
            $0.cacheDirectory = directory.path
        }
        defer { server.cancel() }
        let path = Self.plain(origin, "/mine.jpg")
        func size(_ cookie: String?) async throws -> String {
            let reply = try await server.get(path, headers: cookie.map { [("Cookie", $0)] } ?? [])
            guard reply.status == 200 else { return "\(reply.status)" }
            #expect(reply.header("cache-control") == "private, max-age=31536000" && reply.header("vary")?.contains("Cookie") == true)
            let image = try ServerHarness.image(reply)
            return "\(image.width)x\(image.height)"
        }

        for _ in 0..<2 {
            #expect(try await size("session=a") == "300x200")
            #expect(try await size("session=b") == "300x300")
        }
        #expect(origin.hits("/mine.jpg") == 2)   // each client's answer came from memory the second time, under its own key
        #expect(try await size(nil) == "502")     // no cookie: the origin's 403, never a client's image
        let info = try await server.get("/info/unsafe/s:1/plain/http://127.0.0.1:\(origin.port)/mine.jpg", headers: [("Cookie", "session=b")])
        #expect(info.status == 200 && info.header("cache-control")?.hasPrefix("private") == true)
        await server.server.writes.drain()
        #expect(Self.responseWrites(of: server) == 0)

        // A second instance on the same disk tier has nothing of theirs.
        let second = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.cacheDirectory = directory.path
        }
        defer { second.cancel() }
        #expect(try await second.get(path).status == 502)
    }

    @Test("An error made with a client's cookies is private, no-store, whatever --error-cache-control says; without cookies errors carry that setting, or nothing by default")
    func cookiedErrorsAreNotStored() async throws {
        let origin = try Self.sessionOrigin()
        defer { origin.stop() }
        let path = Self.plain(origin, "/mine.jpg")
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.cookiePassthrough.isEnabled = true
            $0.errorCacheControl = "public, max-age=10"
        }
        defer { server.cancel() }
        // The origin refuses an unknown session: the 502 says something of this client's access.
        let refused = try await server.get(path, headers: [("Cookie", "session=z")])
        #expect(refused.status == 502 && refused.header("cache-control") == "private, no-store", "\(refused.status) \(refused.header("cache-control") ?? "none")")
        let info = try await server.get("/info/unsafe/s:1/plain/http://127.0.0.1:\(origin.port)/mine.jpg", headers: [("Cookie", "session=z")])
        #expect(info.status == 502 && info.header("cache-control") == "private, no-store")
        let anonymous = try await server.get(path)
        #expect(anonymous.status == 502 && anonymous.header("cache-control") == "public, max-age=10")
        #expect(anonymous.header("x-content-type-options") == "nosniff")

        let plain = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { plain.cancel() }
        let error = try await plain.get(path)
        #expect(error.status == 502 && error.header("cache-control") == nil, "imgproxy 4 sends no Cache-Control on errors")
        #expect(error.header("content-security-policy") == SecurityHeadersMiddleware<BasicRequestContext>.policy)
    }

    @Test("Cookies go to the request's own host (port aside) or --cookie-base-url's, never across a redirect to another host; --cookie-passthrough-all sends them anywhere")
    func cookieScope() async throws {
        let origin = try Self.sessionOrigin()
        defer { origin.stop() }
        let elsewhere = try Self.sessionOrigin(address: "127.0.0.2")
        defer { elsewhere.stop() }
        let hop = try TestHTTPServer { _ in .redirect("http://127.0.0.2:\(elsewhere.port)/mine.jpg") }
        defer { hop.stop() }
        func start(_ configure: @escaping (inout CookiePassthrough) -> Void) async throws -> ServerHarness {
            try await ServerHarness.start {
                $0.allowLoopbackSources = true
                $0.cookiePassthrough.isEnabled = true
                configure(&$0.cookiePassthrough)
            }
        }
        let scoped = try await start { _ in }
        defer { scoped.cancel() }
        let based = try await start { $0.baseURL = "https://images.example.com" }
        defer { based.cancel() }
        let everywhere = try await start {
            $0.baseURL = "https://images.example.com"
            $0.passesAll = true
        }
        defer { everywhere.cancel() }
        let cookie = ("Cookie", "session=a")
        let path = Self.plain(origin, "/mine.jpg"), redirected = Self.plain(hop, "/mine.jpg")

        #expect(try await scoped.get(path, headers: [cookie]).status == 200)
        #expect(try await scoped.get(path, headers: [cookie, ("X-Forwarded-Host", "127.0.0.1:8443")]).status == 200)
        #expect(try await scoped.get(path, headers: [cookie, ("X-Forwarded-Host", "cdn.example.com")]).status == 502)
        #expect(try await based.get(path, headers: [cookie]).status == 502)
        #expect(try await everywhere.get(path, headers: [cookie]).status == 200)
        // The hop is in scope; the host it redirects to is not, so the cookies stay behind.
        #expect(try await scoped.get(redirected, headers: [cookie]).status == 502)
        #expect(try await everywhere.get(redirected, headers: [cookie]).status == 200)
    }
}
