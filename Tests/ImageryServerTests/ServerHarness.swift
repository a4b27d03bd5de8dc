import AsyncHTTPClient
import Foundation
import Imagery
import ImageryCodecs
@testable import ImageryServer
import Logging
import NIOCore
import NIOHTTP1
import Testing

/// An `imagery-server` in this process on 127.0.0.1 with a free port, and a client for it.
/// Stopped by cancelling its task when the test that started it ends.
struct ServerHarness {
    let port: Int
    let server: ServerApplication
    private let task: Task<Void, any Error>

    /// `logger` (default: one that says nothing) gets the server's log lines.
    static func start(logger: Logger? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> ServerHarness {
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        // Origins held by a gate sit idle until the test opens it; under TSan on a busy machine
        // that can take longer than the 20 s default, and a request longer than the 30 s one.
        configuration.upstreamTimeout = .seconds(300)
        configuration.requestTimeout = .seconds(300)
        configure(&configuration)
        try await configuration.loadImages()
        try await configuration.assumeS3Role()
        let logger = logger ?? {
            var quiet = Logger(label: "imagery.server.test")
            quiet.logLevel = .critical
            return quiet
        }()
        let server = try ServerApplication(configuration: configuration, logger: logger)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let task = Task { try await server.run(handlesSignals: false) { continuation.yield($0) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw CancellationError() }
        return ServerHarness(port: port, server: server, task: task)
    }

    /// Stops the server: cancelling its task shuts the service group down, which closes the
    /// listening socket and lets in-flight requests finish.
    func cancel() {
        task.cancel()
    }

    struct Reply {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers.first(name: name) }
    }

    /// The value of `series` (name and labels) in this server's `/metrics`; 0 when absent.
    func metric(_ series: String) -> Double {
        String(decoding: server.metrics.render(), as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix(series + " ") }
            .flatMap { $0.split(separator: " ").last }
            .flatMap { Double($0) } ?? 0
    }

    /// GET `path` (sent as is: the test controls the encoding).
    func get(_ path: String, headers: [(String, String)] = []) async throws -> Reply {
        try await Self.get(port: port, path, headers: headers)
    }

    /// GET `path` from whatever server listens on 127.0.0.1:`port` (a child process, nginx).
    ///
    /// The default deadline is the suites' time limit less a margin, not a guess at how long an
    /// answer takes: in a full parallel run on two cores a debug build's decode can wait behind
    /// a minute and more of other suites' work, and the tests assert answers, not timings.
    static func get(port: Int, _ path: String, headers: [(String, String)] = [], timeout: TimeAmount = .seconds(540)) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        guard timeout > .seconds(90) else { return try await reply(to: request, from: HTTPClient.shared, timeout: timeout) }
        // The shared client's read timeout would end a slow answer before the deadline: a
        // client of its own, with the deadline as its read timeout, shut down after.
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(10), read: timeout)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let reply = try await reply(to: request, from: client, timeout: timeout)
            try await client.shutdown()
            return reply
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private static func reply(to request: HTTPClientRequest, from client: HTTPClient, timeout: TimeAmount) async throws -> Reply {
        let response = try await client.execute(request, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Array(buffer: body))
    }

    /// The decoded image of a 200 reply.
    static func image(_ reply: Reply) throws -> Bitmap {
        try ImageDecoder().decode(reply.body, options: DecodingOptions())
    }

    /// Checks that `reply` is a 200 with a `format` image by everything a client could go by:
    /// its `Content-Type`, its magic bytes, and a decode that reads it as `format`. A header
    /// alone would pass a body in another format, or none. Returns the decoded image.
    @discardableResult
    static func expectImage(
        _ reply: Reply, _ format: ImageFormat, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bitmap? {
        let context = comment.map { "\($0): " } ?? ""
        #expect(reply.status == 200, "\(context)status \(reply.status)", sourceLocation: sourceLocation)
        #expect(reply.header("content-type") == format.mimeType, "\(context)Content-Type", sourceLocation: sourceLocation)
        #expect(ImageFormat(sniffing: reply.body) == format, "\(context)magic bytes \(reply.body.prefix(12).map { String($0, radix: 16) })", sourceLocation: sourceLocation)
        do {
            let image = try ImageDecoder().decode(reply.body, options: DecodingOptions())
            #expect(image.metadata.format == format, "\(context)decoded as \(String(describing: image.metadata.format))", sourceLocation: sourceLocation)
            return image
        } catch {
            Issue.record("\(context)does not decode: \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }
}

extension String {
    /// The base64url form imgproxy URLs carry a source in.
    var base64URL: String {
        Data(utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
