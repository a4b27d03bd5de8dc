import AsyncHTTPClient
import Foundation
import HummingbirdCore
import Imagery
import ImageryCodecs
import ImageryHTTPClient
@testable import ImageryServer
import ImageryTestSupport
import Logging
import NIOCore
import NIOHTTP1
import Testing

/// Where the server listens and how it reaches origins: a Unix socket, one address family,
/// the origin client's keep-alive and TLS verification, and how failed downloads are told.
@Suite("imagery-server networks, origin connections and error reports", .timeLimit(.minutes(10)))
struct ServerNetworkTests {
    @Test("--unix-socket: images and health over a Unix socket")
    func unixSocket() async throws {
        let origin = try ServerTests.origin()
        defer { origin.stop() }
        let directory = "/tmp/imagery-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/s.sock"
        let server = try await ServerHarness.start {
            $0.unixSocket = path
            $0.allowLoopbackSources = true
        }
        defer { server.cancel() }

        let connection = try RawConnection.unix(path: path)
        try connection.get(ServerTests.plain(origin, "/rocket.jpg", options: "w:40"))
        let reply = try #require(await connection.readResponse())
        #expect(reply.head.hasPrefix("HTTP/1.1 200") && reply.head.contains("X-Imagery-Instance: unix:\(path)"))
        #expect(try ImageDecoder().decode(reply.body, options: DecodingOptions()).width == 40)
        try connection.get("/health")
        #expect(await connection.readResponse()?.body == Array("ok\n".utf8))
    }

    @Test("imagery-server health asks under --path-prefix, past --secret, and over --unix-socket")
    func healthCheck() async throws {
        // Given a server under a prefix with a secret, and one on a Unix socket
        let prefixed = try await ServerHarness.start {
            $0.pathPrefix = "/img"
            $0.secret = "token"
        }
        defer { prefixed.cancel() }
        var configuration = prefixed.server.configuration
        configuration.port = prefixed.port
        #expect(HealthCheck.url(for: configuration) == "http://127.0.0.1:\(prefixed.port)/img/health")
        let directory = "/tmp/imagery-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let socket = try await ServerHarness.start { $0.unixSocket = directory + "/s.sock" }
        defer { socket.cancel() }

        // When the health command asks each as its settings describe it
        let overTCP = await HealthCheck.run(configuration)
        let overSocket = await HealthCheck.run(socket.server.configuration)

        // Then both answer 200
        #expect(overTCP.healthy, "\(overTCP.message)")
        #expect(overSocket.healthy && overSocket.message.hasPrefix("http+unix://"), "\(overSocket.message)")
    }

    @Test("--network tcp4 resolves a name to its IPv4 address, and refuses an IPv6 one")
    func tcp4() async throws {
        let server = try await ServerHarness.start {
            $0.network = .tcp4
            $0.host = "localhost"
        }
        defer { server.cancel() }
        #expect(try await server.get("/health").status == 200)
        var configuration = ServerConfiguration()
        configuration.network = .tcp4
        configuration.host = "::1"
        #expect(throws: ServerSetupError.self) { try configuration.bindAddress() }
        configuration.network = .tcp6
        configuration.host = "127.0.0.1"
        #expect(throws: ServerSetupError.self) { try configuration.bindAddress() }
        configuration.host = "0.0.0.0"
        #expect(try configuration.bindAddress() == .hostname("::", port: 8080), "every interface, in IPv6")
    }

    @Test("--network tcp6 listens on IPv6 loopback", .enabled(if: Self.hasIPv6Loopback, "this machine has no IPv6 loopback (::1)"))
    func tcp6() async throws {
        let server = try await ServerHarness.start {
            $0.network = .tcp6
            $0.host = "::1"
        }
        defer { server.cancel() }
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://[::1]:\(server.port)/health"), timeout: .seconds(120))
        #expect(response.status.code == 200)
        _ = try await response.body.collect(upTo: 1024)
    }

    static let hasIPv6Loopback = ((try? String(contentsOfFile: "/proc/net/if_inet6", encoding: .utf8)) ?? "")
        .contains("00000000000000000000000000000001")

    @Test("--client-keep-alive-timeout 0 opens a connection to the origin per download; the default reuses them")
    func clientKeepAlive() async throws {
        for (keepAlive, reused) in [(Duration.zero, false), (.seconds(90), true)] {
            let origin = try ServerTests.origin()
            defer { origin.stop() }
            let server = try await ServerHarness.start {
                $0.allowLoopbackSources = true
                $0.clientKeepAliveTimeout = keepAlive
            }
            defer { server.cancel() }
            // Different sources, one after another: nothing is coalesced or cached.
            for path in ["/rocket.jpg", "/logo.png", "/alpha.png", "/text.txt"] {
                _ = try await server.get(ServerTests.plain(origin, path))
            }
            #expect(origin.events.count("request") == 4)
            if reused {
                #expect(origin.connectionCount < 4, "kept-alive connections were not reused")
            } else {
                #expect(origin.connectionCount == 4, "a connection served two downloads")
            }
        }
    }

    @Test("A failed download is logged at warning with its host; --report-downloading-errors false logs it at debug")
    func downloadingErrors() async throws {
        let origin = try ServerTests.origin()
        defer { origin.stop() }
        for reports in [true, false] {
            let log = CapturedLog()
            let server = try await ServerHarness.start(logger: log.logger()) {
                $0.allowLoopbackSources = true
                $0.reportDownloadingErrors = reports
            }
            defer { server.cancel() }
            #expect(try await server.get(ServerTests.plain(origin, "/missing.jpg")).status == 404)
            #expect(try await server.get(ServerTests.plain(origin, "/broken")).status == 502)
            let lines = log.lines("source download failed")
            #expect(lines.count == 2)
            #expect(lines.allSatisfy { $0.level == (reports ? .warning : .debug) && $0.metadata["host"] == "127.0.0.1" })
        }
    }

    @Test("--development-errors-mode: error bodies carry the detail the log has")
    func developmentErrors() async throws {
        let origin = try ServerTests.origin()
        defer { origin.stop() }
        let plain = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { plain.cancel() }
        let development = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.developmentErrorsMode = true
        }
        defer { development.cancel() }

        let path = ServerTests.plain(origin, "/broken", options: "w:11")
        #expect(try await plain.get(path).text == "source: the origin answered 500\n")
        let detailed = try await development.get(path)
        #expect(detailed.status == 502)
        #expect(detailed.text == "source: the origin answered 500\ndetail: HTTP 500 from http://127.0.0.1:\(origin.port)/broken\n")
        // A refusal that names everything already stays one line.
        #expect(try await development.get("/unsafe/w:x/plain/http://127.0.0.1/a.jpg").text.split(separator: "\n").count == 1)
    }
}

extension ServerNetworkTests {
    /// An HTTPS origin on 127.0.0.1 with a self-signed certificate made for the test: Python's
    /// `http.server` in TLS, serving `body` at every path.
    static func selfSignedOrigin(serving body: [UInt8], in directory: String) async throws -> (ServerProcess, Int) {
        let key = directory + "/key.pem", certificate = directory + "/cert.pem", file = directory + "/body"
        try Data(body).write(to: URL(fileURLWithPath: file))
        let made = try await ChildProcess.run("/usr/bin/env", [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
            "-days", "1", "-subj", "/CN=127.0.0.1",
        ], output: directory + "/openssl.log")
        try #require(made.exitCode == 0, "openssl could not make a certificate")
        let script = """
            import http.server, ssl, sys
            body = open(sys.argv[3], "rb").read()
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *arguments):
                    pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            server.socket = context.wrap_socket(server.socket, server_side=True)
            print("listening on 127.0.0.1:%d" % server.server_address[1], flush=True)
            server.serve_forever()
            """
        let process = try ServerProcess.start(executable: "/usr/bin/env", ["python3", "-c", script, certificate, key, file], readyMarker: "listening")
        return (process, try await process.port())
    }

    @Test(
        "--ignore-ssl-verification: an origin with a self-signed certificate is refused (502), then served once verification is off",
        .tags(.integration), .offUnderSanitizer
    )
    func ignoreSSLVerification() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (origin, port) = try await Self.selfSignedOrigin(serving: Fixtures.rocket, in: directory)
        defer { origin.kill() }
        let path = "/unsafe/w:30/plain/https://127.0.0.1:\(port)/rocket.jpg"

        let verifying = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { verifying.cancel() }
        #expect(try await verifying.get(path).status == 502)

        let trusting = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.ignoreSSLVerification = true
        }
        defer { trusting.cancel() }
        #expect(!trusting.server.configuration.loading.verifiesCertificates)
        #expect(trusting.server.startWarnings.contains { $0.hasPrefix("--ignore-ssl-verification") })
        let served = try await trusting.get(path)
        #expect(served.status == 200)
        #expect(try ServerHarness.image(served).width == 30)
    }
}
