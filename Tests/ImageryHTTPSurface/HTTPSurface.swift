import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Imagery
import ImageryCodecs
import ImageryServer
import ImageryTestSupport
import Logging
import NIOCore

/// imagery-server's HTTP surface with every setting that changes how headers are read turned
/// on, driven in this process through HummingbirdTesting (no socket to the server), and a
/// loopback origin double that answers each ``HostileExchange`` as it says.
///
/// ```swift
/// try await HTTPSurface.run { surface in
///     let problems = try await surface.ask(HostileExchange(text: input))
/// }
/// ```
package final class HTTPSurface: Sendable {
    /// What the server answered.
    package struct Answer: Sendable {
        package let status: Int
        package let headers: HTTPFields
        package let body: [UInt8]
    }

    package let origin: TestHTTPServer
    private let client: any TestClientProtocol
    private let replies: Locked<[String: HostileExchange]>
    /// Seconds added to the server's clock, for `Later`.
    private let elapsed: Locked<Int>
    private let asked = Locked(0)
    private let bodies: Bodies

    /// The origin's bodies: a real photo, small, in each format every build reads.
    private struct Bodies: Sendable {
        let jpeg: [UInt8], png: [UInt8], gif: [UInt8]
        let svg = Array(##"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"><rect width="40" height="30" fill="#08f"/></svg>"##.utf8)
    }

    private init(origin: TestHTTPServer, client: any TestClientProtocol, replies: Locked<[String: HostileExchange]>, elapsed: Locked<Int>, bodies: Bodies) {
        self.origin = origin
        self.client = client
        self.replies = replies
        self.elapsed = elapsed
        self.bodies = bodies
    }

    /// The settings every surface has: every one that changes how a header is read or
    /// written, on; loopback sources allowed (the origin double); results at most 2,048 pixels
    /// a side, so that no input makes one answer take seconds.
    package static func configuration(root: String, clock: @escaping @Sendable () -> Int) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.localRoot = root
        configuration.allowLoopbackSources = true
        configuration.cacheControlPassthrough = true
        configuration.enableClientHints = true
        configuration.enableDebugHeaders = true
        configuration.setCanonicalHeader = true
        configuration.etagBuster = "surface"
        configuration.cookiePassthrough.isEnabled = true
        configuration.allowOrigin = "*"
        configuration.allowSecurityOptions = true
        configuration.maximumResultDimension = 2048
        configuration.upstreamTimeout = .seconds(20)
        configuration.requestTimeout = .seconds(120)
        configuration.clock = clock
        return configuration
    }

    /// Runs `body` with a surface, `configure` changing its settings first; the server, its
    /// origin and its local root are gone when it returns.
    package static func run<T: Sendable>(
        _ configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (HTTPSurface) async throws -> T
    ) async throws -> T {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-surface-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        // A real photo, at 16 × 11: every stage runs on it, and a thousand answers cost little.
        let photo = try Thumbnailer(resize: .fit(width: 16, height: 16)).thumbnail(from: Fixtures.bytes("bmp_24_rocket_64x43.bmp"))
        let bodies = Bodies(
            jpeg: try ImageEncoder(format: .jpeg).encode(photo),
            png: try ImageEncoder(format: .png).encode(photo),
            gif: try ImageEncoder(format: .gif).encode(photo)
        )
        try Data(bodies.jpeg).write(to: root.appendingPathComponent("s.jpg"))

        let replies = Locked<[String: HostileExchange]>([:])
        let elapsed = Locked(0)
        let origin = try TestHTTPServer { request in
            guard let exchange = replies.withLock({ $0[request.path] }) else { return .status(404) }
            return .headers(exchange.originStatus, exchange.originHeaders, Self.bytes(of: exchange.body, in: bodies))
        }
        defer { origin.stop() }
        let start = Int(Date().timeIntervalSince1970)
        var configuration = Self.configuration(root: root.path, clock: { start + elapsed.withLock { $0 } })
        configure(&configuration)
        var logger = Logger(label: "imagery.surface")
        logger.logLevel = .critical
        let server = try ServerApplication(configuration: configuration, logger: logger)
        return try await server.application().test(.router) { client in
            try await body(HTTPSurface(origin: origin, client: client, replies: replies, elapsed: elapsed, bodies: bodies))
        }
    }

    private static func bytes(of body: HostileExchange.Body, in bodies: Bodies) -> [UInt8] {
        switch body {
        case .png: bodies.png
        case .jpeg: bodies.jpeg
        case .gif: bodies.gif
        case .svg: bodies.svg
        case .text: Array("not an image\n".utf8)
        case .empty: []
        case let .raw(bytes): bytes
        }
    }

    /// Asks `exchange` once, and again after its `Later` seconds; returns what was wrong with
    /// the answers (empty when nothing was).
    package func ask(_ exchange: HostileExchange) async throws -> [String] {
        let request = prepare(exchange)
        defer { finish(request) }
        var problems = try await answer(request).problems(for: request.method)
        if let later = exchange.later {
            // The server's clock is its own and trusted: it moves on, and wraps after fifty
            // years (as a clock set back would), so that no run of inputs takes it past 9999.
            elapsed.withLock { $0 = ($0 + later) % (50 * 365 * 86_400) }
            problems += try await answer(request).problems(for: request.method).map { "after \(later) s: " + $0 }
        }
        return problems
    }

    /// The first answer to `exchange`.
    package func answer(_ exchange: HostileExchange) async throws -> Answer {
        let request = prepare(exchange)
        defer { finish(request) }
        return try await answer(request)
    }

    private struct Prepared {
        let path: String, method: HTTPRequest.Method, headers: HTTPFields, originPath: String
    }

    /// `exchange` as a request, its origin's reply registered: `ORIGIN` is a path of its own
    /// (nothing stored for another exchange answers it), `SHARED` one path for every exchange
    /// that names it (so a batch reads one stored answer), `LOCAL` the photo under the root.
    private func prepare(_ exchange: HostileExchange) -> Prepared {
        let number = asked.withLock { count in
            count += 1
            return count
        }
        let originPath = exchange.path.contains("SHARED") ? "/shared" : "/o/\(number)"
        replies.withLock { $0[originPath] = exchange }
        // What an HTTP/1.1 parser lets through as a request target: no controls or spaces, and
        // a leading slash (the router under test never sees anything else from a socket).
        let target = String(String.UnicodeScalarView(exchange.path.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }))
        let path = (target.hasPrefix("/") ? target : "/" + target)
            .replacing("ORIGIN", with: "http://127.0.0.1:\(origin.port)\(originPath)")
            .replacing("SHARED", with: "http://127.0.0.1:\(origin.port)\(originPath)")
            .replacing("LOCAL", with: "local:///s.jpg")
        var headers = HTTPFields()
        for (name, value) in exchange.headers {
            guard let name = HTTPField.Name(name) else { continue }
            headers.append(HTTPField(name: name, value: value))
        }
        return Prepared(path: path, method: HTTPRequest.Method(exchange.method) ?? .get, headers: headers, originPath: originPath)
    }

    private func finish(_ request: Prepared) {
        guard request.originPath != "/shared" else { return }
        replies.withLock { $0[request.originPath] = nil }
    }

    /// Asks each of `exchanges`, `width` at a time; returns every problem, each naming its exchange.
    package func ask(_ exchanges: [HostileExchange], width: Int = 8) async throws -> [String] {
        try await withThrowingTaskGroup(of: [String].self) { group in
            var problems: [String] = [], next = 0
            func add() {
                let exchange = exchanges[next]
                next += 1
                group.addTask { try await self.ask(exchange).map { "\($0)\n--- for\n\(exchange)" } }
            }
            while next < min(width, exchanges.count) { add() }
            while let found = try await group.next() {
                problems += found
                if next < exchanges.count { add() }
            }
            return problems
        }
    }

    private func answer(_ request: Prepared) async throws -> Answer {
        let response = try await client.executeRequest(uri: request.path, method: request.method, headers: request.headers, body: nil)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Array(buffer: response.body))
    }
}

extension HTTPSurface.Answer {
    /// What is wrong with this answer to a `method` request: a 500 (a thrown error, or a
    /// failure the server could not name), a success whose body is not what it says it is, or
    /// an answer without imgproxy's policy and nosniff.
    package func problems(for method: HTTPRequest.Method) -> [String] {
        var problems: [String] = []
        let line = String(decoding: body.prefix(160), as: UTF8.self)
        if status == 500 { problems.append("500: \(line)") }
        if !(100..<600).contains(status) { problems.append("status \(status)") }
        if headers[HTTPField.Name("X-Content-Type-Options")!] != "nosniff" { problems.append("\(status) without nosniff") }
        if headers[.contentSecurityPolicy] == nil { problems.append("\(status) without a Content-Security-Policy") }
        guard method == .get else { return problems }
        if status == 304, !body.isEmpty { problems.append("a 304 with a body") }
        if let length = headers[.contentLength], status != 304, Int(length) != body.count {
            problems.append("\(status): Content-Length \(length) for \(body.count) bytes")
        }
        if status == 200, let type = headers[.contentType], type.hasPrefix("image/") {
            let format = ImageFormat(sniffing: body)
            if format?.mimeType != type { problems.append("200 \(type) whose bytes are \(format.map { "\($0)" } ?? "no image")") }
        }
        return problems
    }
}

