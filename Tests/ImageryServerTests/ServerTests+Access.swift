import AsyncHTTPClient
import Foundation
@testable import Imagery
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import NIOCore
import NIOHTTP1
import Testing

/// Who may ask and where: the path prefix, the bearer secret, CORS and imgproxy's request
/// queue, over a real socket on 127.0.0.1.
@Suite("imagery-server access: path prefix, secret, CORS, request queue", .timeLimit(.minutes(10)))
struct ServerAccessTests {
    @Test("--path-prefix puts every route under it, the health checks and /metrics included; the signature covers what follows it")
    func pathPrefix() async throws {
        let origin = try ServerTests.origin()
        defer { origin.stop() }
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.pathPrefix = "/img/v1"
            $0.healthCheckPath = "/alive"
            $0.keyHex = key
            $0.saltHex = salt
        }
        defer { server.cancel() }
        let unsigned = "/rs:fit:50:50/plain/http://127.0.0.1:\(origin.port)/rocket.jpg"
        let signed = "/" + (try ImgproxySigner(keysHex: key, saltsHex: salt)).sign(unsigned) + unsigned

        for path in ["/img/v1/health", "/img/v1/alive", "/img/v1/metrics", "/img/v1" + signed] {
            #expect(try await server.get(path).status == 200, "\(path)")
        }
        let image = try ServerHarness.image(try await server.get("/img/v1" + signed))
        #expect(max(image.width, image.height) == 50)
        for path in ["/health", "/alive", "/metrics", signed, "/img/health", "/img/v1x/health"] {
            #expect(try await server.get(path).status == 404, "\(path) answered outside the prefix")
        }
        #expect(try await server.get("/img/v1/info" + signed.replacingOccurrences(of: "/rs:fit:50:50", with: "")).status != 404)
    }

    @Test("--secret: Authorization: Bearer is required everywhere but the health checks, and never logged")
    func secret() async throws {
        let origin = try ServerTests.origin()
        defer { origin.stop() }
        let log = CapturedLog()
        let secret = "s3cr3t-Token_value"
        let server = try await ServerHarness.start(logger: log.logger()) {
            $0.allowLoopbackSources = true
            $0.secret = secret
            $0.healthCheckPath = "/alive"
            $0.pathPrefix = "/p"
        }
        defer { server.cancel() }
        let image = "/p" + ServerTests.plain(origin, "/rocket.jpg")

        for path in ["/p/health", "/p/alive"] { #expect(try await server.get(path).status == 200, "\(path) needs no secret") }
        for path in [image, "/p/metrics", "/p/info/unsafe/plain/http://127.0.0.1:\(origin.port)/rocket.jpg", "/nowhere"] {
            let refused = try await server.get(path)
            #expect(refused.status == 403 && refused.header("cache-control") == "no-store", "\(path)")
            for wrong in ["Bearer wrong", secret, "Bearer " + secret + "x", "bearer " + secret] {
                #expect(try await server.get(path, headers: [("Authorization", wrong)]).status == 403, "\(path) with \(wrong)")
            }
        }
        #expect(origin.hits("/rocket.jpg") == 0, "a refused request cost the origin nothing")
        #expect(try await server.get(image, headers: [("Authorization", "Bearer " + secret)]).status == 200)
        #expect(try await server.get("/p/metrics", headers: [("Authorization", "Bearer " + secret)]).status == 200)
        #expect(!log.text.contains(secret) && !log.text.isEmpty)
    }

    @Test("--allow-origin: answers allow the origin, with an Origin or without; preflights for GET and HEAD only, and before the secret")
    func cors() async throws {
        let app = "https://app.example"
        let server = try await ServerHarness.start {
            $0.allowOrigin = app
            $0.secret = "token"
        }
        defer { server.cancel() }
        let bearer = ("Authorization", "Bearer token")

        for headers in [[bearer, ("Origin", app)], [bearer]] {
            let reply = try await server.get("/metrics", headers: headers)
            #expect(reply.status == 200 && reply.header("access-control-allow-origin") == app)
        }
        // A preflight carries no credentials; it is answered before the secret is checked.
        let preflight = try await Self.options(port: server.port, headers: [("Origin", app), ("Access-Control-Request-Method", "GET")])
        #expect(preflight.status == 204)
        #expect(preflight.header("access-control-allow-origin") == app && preflight.header("access-control-allow-methods") == "GET, HEAD")
        for method in ["POST", "PUT", "DELETE"] {
            let refused = try await Self.options(port: server.port, headers: [("Origin", app), ("Access-Control-Request-Method", method)])
            #expect(refused.status == 405 && refused.header("access-control-allow-origin") == nil, "\(method)")
        }

        // Without --allow-origin, no CORS at all: OPTIONS is a method like any other
        let plain = try await ServerHarness.start()
        defer { plain.cancel() }
        #expect(try await Self.options(port: plain.port, headers: [("Origin", app), ("Access-Control-Request-Method", "GET")]).status == 405)
        #expect(try await plain.get("/health", headers: [("Origin", app)]).header("access-control-allow-origin") == nil)
    }

    static func options(port: Int, headers: [(String, String)]) async throws -> ServerHarness.Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/unsafe/w:10/plain/http://example.com/a.jpg")
        request.method = .OPTIONS
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 1 << 20)
        return ServerHarness.Reply(status: Int(response.status.code), headers: response.headers, body: Array(buffer: body))
    }

    @Test("--requests-queue-size: requests waiting beyond --concurrency past it get 429, as imgproxy's full queue does")
    func requestsQueue() async throws {
        let gate = Gate()
        let origin = try ServerTests.origin(gate: gate)
        defer {
            gate.open()
            origin.stop()
        }
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.concurrentProcessing = 1
            $0.requestsQueueSize = 1
        }
        defer { server.cancel() }

        // Given one request worked on and one waiting (both held by the origin)
        async let first = server.get(ServerTests.plain(origin, "/rocket.jpg", options: "w:10"))
        async let second = server.get(ServerTests.plain(origin, "/rocket.jpg", options: "w:20"))
        await server.server.pipeline.graph.waitUntil { $0.registeredCount == 2 }

        // When a third arrives, it is refused at once, and never stored
        let refused = try await server.get(ServerTests.plain(origin, "/rocket.jpg", options: "w:30"))
        #expect(refused.status == 429 && refused.header("retry-after") == "1" && refused.header("cache-control") == "no-store")

        // Then the two admitted are answered, and room is made again
        gate.open()
        #expect(try await first.status == 200)
        #expect(try await second.status == 200)
        #expect(try await server.get(ServerTests.plain(origin, "/rocket.jpg", options: "w:30")).status == 200)
    }
}
