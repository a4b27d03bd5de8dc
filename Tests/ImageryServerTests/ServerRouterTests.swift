import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Imagery
import ImageryCodecs
@testable import ImageryServer
import ImageryTestSupport
import Logging
import NIOCore
import Testing

/// The routes and middleware, driven through HummingbirdTesting without a socket: the same
/// router the server runs, with its middleware, in this process.
@Suite("imagery-server's routes and middleware, without a socket", .timeLimit(.minutes(10)))
struct ServerRouterTests {
    /// A server over a local root holding the rocket photo, its router named `test-instance`.
    static func withRouter(
        _ configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (any TestClientProtocol, ServerApplication) async throws -> Void
    ) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-router-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(Fixtures.rocket).write(to: root.appendingPathComponent("rocket.jpg"))
        var configuration = ServerConfiguration()
        configuration.localRoot = root.path
        configuration.instanceName = "test-instance"
        // As ServerHarness: the deadline is tested on its own; here a loaded machine must not
        // turn a slow answer into a 503.
        configuration.requestTimeout = .seconds(300)
        configure(&configuration)
        var logger = Logger(label: "imagery.server.router-test")
        logger.logLevel = .critical
        let server = try ServerApplication(configuration: configuration, logger: logger)
        // The application's services include the drain, which closes the server's HTTP client
        // when the test's service group ends.
        let app = server.application(instance: InstanceName(configuration: configuration))
        try await app.test(.router) { client in try await body(client, server) }
    }

    static let image = "/unsafe/rs:fit:100:100/plain/local:///rocket.jpg"

    @Test("/health and the extra health path answer ok, with the instance header")
    func health() async throws {
        try await Self.withRouter({ $0.healthCheckPath = "/alive" }) { client, _ in
            for path in ["/health", "/alive"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body) == "ok\n")
                    #expect(response.headers[.imageryInstance] == "test-instance")
                    #expect(response.headers[.cacheControl] == "no-store")
                }
            }
        }
    }

    @Test("An image, then the same image from the response cache; HEAD has the headers and no body")
    func imageAndHead() async throws {
        try await Self.withRouter { client, server in
            let first = try await client.execute(uri: Self.image, method: .get)
            #expect(first.status == .ok && first.headers[.contentType] == "image/jpeg")
            #expect(first.headers[.contentLength] == String(first.body.readableBytes))
            let decoded = try ImageDecoder().decode(Array(buffer: first.body), options: DecodingOptions())
            #expect(decoded.width == 100 && decoded.height == 67)

            let head = try await client.execute(uri: Self.image, method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)
            #expect(head.headers[.contentLength] == first.headers[.contentLength])
            #expect(head.headers[.eTag] == first.headers[.eTag])
            #expect(server.pipeline.statistics.decodes == 1)   // the HEAD was a response-cache hit
        }
    }

    @Test("Methods other than GET and HEAD are 405 with Allow, on every path")
    func methods() async throws {
        try await Self.withRouter { client, _ in
            for path in ["/health", Self.image, "/nowhere"] {
                try await client.execute(uri: path, method: .post) { response in
                    #expect(response.status == .methodNotAllowed)
                    #expect(response.headers[.allow] == "GET, HEAD")
                    #expect(response.headers[.imageryInstance] == "test-instance")
                }
            }
        }
    }

    @Test("A refused path gets its status and line from the catch-all, with the instance header, imgproxy's policy and no caching")
    func refusals() async throws {
        try await Self.withRouter { client, _ in
            try await client.execute(uri: "/unsafe/zoom_in:2/plain/local:///rocket.jpg", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(String(buffer: response.body) == "unknown option: zoom_in\n")
                #expect(response.headers[.cacheControl] == nil)
                #expect(response.headers[.contentSecurityPolicy] == "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox")
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[.imageryInstance] == "test-instance")
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .badRequest)   // no demo page without --demo
            }
        }
    }

    @Test("/metrics counts requests by status and the response tiers")
    func metrics() async throws {
        try await Self.withRouter { client, _ in
            _ = try await client.execute(uri: Self.image, method: .get)
            _ = try await client.execute(uri: Self.image, method: .get)
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.contains(#"imagery_http_requests_total{status="200"} 2"#))
                #expect(text.contains(#"imagery_response_hits_total{tier="memory"} 1"#))
                #expect(text.contains("imagery_response_misses_total 1"))
                // The memory budget and what was set aside from it, as the server resolved them.
                #expect(text.contains("imagery_memory_budget_bytes ") && text.contains("imagery_memory_reserved_bytes "), "\(text)")
            }
        }
    }
}
