import Foundation
import HummingbirdCore
@testable import ImageryServer
import Testing

/// imgproxy's server settings (issue 32): read in imgproxy's units under both prefixes, and
/// refused by name where imgproxy would refuse them or where two settings contradict.
extension ServerSettingsTests {
    @Test("imgproxy's timeouts, in whole seconds, set ours")
    func imgproxyTimeouts() async throws {
        let loaded = try await Self.load(environment: [
            "IMGPROXY_TIMEOUT": "12", "IMGPROXY_READ_REQUEST_TIMEOUT": "3", "IMGPROXY_WRITE_RESPONSE_TIMEOUT": "4",
            "IMAGERY_KEEP_ALIVE_TIMEOUT": "0", "IMGPROXY_CLIENT_KEEP_ALIVE_TIMEOUT": "30", "IMGPROXY_GRACEFUL_STOP_TIMEOUT": "0",
        ]).configuration
        #expect(loaded.requestTimeout == .seconds(12) && loaded.readRequestTimeout == .seconds(3) && loaded.writeResponseTimeout == .seconds(4))
        #expect(loaded.keepAliveTimeout == .zero && loaded.clientKeepAliveTimeout == .seconds(30) && loaded.gracefulStopTimeout == .zero)
        #expect(try await Self.load(environment: ["IMAGERY_TIMEOUT": "9"]).configuration.requestTimeout == .seconds(9))
        #expect(try await Self.load(environment: ["IMAGERY_REQUEST_TIMEOUT": "0.5"]).configuration.requestTimeout == .milliseconds(500))
    }

    @Test("Where imgproxy listens: NETWORK and BIND, a Unix socket's path included")
    func imgproxyNetwork() async throws {
        let unix = try await Self.load(environment: ["IMGPROXY_NETWORK": "unix", "IMGPROXY_BIND": "/run/imgproxy.sock"]).configuration
        #expect(unix.network == .unix && unix.unixSocket == "/run/imgproxy.sock")
        #expect(try unix.bindAddress() == .unixDomainSocket(path: "/run/imgproxy.sock"))
        let v4 = try await Self.load(environment: ["IMGPROXY_NETWORK": "tcp4", "IMGPROXY_BIND": ":9000"]).configuration
        #expect(try v4.bindAddress() == .hostname("0.0.0.0", port: 9000))
        let v6 = try await Self.load(environment: ["IMGPROXY_NETWORK": "tcp6", "IMGPROXY_BIND": ":9000"]).configuration
        #expect(try v6.bindAddress() == .hostname("::", port: 9000), "every interface, in the network's family")
        #expect(try await Self.load(["--unix-socket", "/tmp/a.sock"]).configuration.unixSocket == "/tmp/a.sock", "a socket path alone is enough")
    }

    @Test("imgproxy's queue, connection limit, prefix, secret, CORS and error settings")
    func imgproxyServerSettings() async throws {
        let loaded = try await Self.load(environment: [
            "IMGPROXY_REQUESTS_QUEUE_SIZE": "8", "IMGPROXY_MAX_CLIENTS": "0", "IMGPROXY_PATH_PREFIX": "/images",
            "IMGPROXY_SECRET": "token", "IMGPROXY_ALLOW_ORIGIN": "*", "IMGPROXY_REPORT_DOWNLOADING_ERRORS": "false",
            "IMGPROXY_DEVELOPMENT_ERRORS_MODE": "true", "IMGPROXY_SO_REUSEPORT": "false",
        ])
        let configuration = loaded.configuration
        #expect(configuration.requestsQueueSize == 8 && configuration.maximumClients == 0 && configuration.pathPrefix == "/images")
        #expect(configuration.secret == "token" && configuration.allowOrigin == "*")
        #expect(!configuration.reportDownloadingErrors && configuration.developmentErrorsMode)
        #expect(ServerSettings.printed(loaded).contains("secret") && !ServerSettings.printed(loaded).contains("token"))

        let unlimited = try await Self.load(environment: ["IMGPROXY_REQUESTS_QUEUE_SIZE": "0"])
        #expect(unlimited.configuration.requestsQueueSize == 0 && unlimited.configuration.maximumQueue == ServerConfiguration().maximumQueue)
        #expect(unlimited.warnings.contains { $0.contains("IMGPROXY_REQUESTS_QUEUE_SIZE=0 means no queue limit in imgproxy") })
    }

    @Test("Values imgproxy refuses, and settings that contradict, stop the start by name", arguments: [
        ([], ["IMGPROXY_TIMEOUT": "0"], "IMGPROXY_TIMEOUT", "must be 1 second or more"),
        ([], ["IMGPROXY_READ_REQUEST_TIMEOUT": "1.5"], "IMGPROXY_READ_REQUEST_TIMEOUT", "not a whole number"),
        ([], ["IMGPROXY_KEEP_ALIVE_TIMEOUT": "-1"], "IMGPROXY_KEEP_ALIVE_TIMEOUT", "must not be negative"),
        ([], ["IMGPROXY_GRACEFUL_STOP_TIMEOUT": "soon"], "IMGPROXY_GRACEFUL_STOP_TIMEOUT", "not a whole number"),
        ([], ["IMGPROXY_MAX_CLIENTS": "-5"], "IMGPROXY_MAX_CLIENTS", "must be in 0...1000000"),
        ([], ["IMGPROXY_REQUESTS_QUEUE_SIZE": "-1"], "IMGPROXY_REQUESTS_QUEUE_SIZE", "0 or more"),
        ([], ["IMGPROXY_NETWORK": "unixpacket"], "IMGPROXY_NETWORK", "unixpacket (SOCK_SEQPACKET) is not served"),
        ([], ["IMGPROXY_NETWORK": "udp"], "IMGPROXY_NETWORK", "must be tcp, tcp4, tcp6 or unix"),
        ([], ["IMGPROXY_NETWORK": "unix"], "--network", "unix needs --unix-socket PATH"),
        ([], ["IMGPROXY_NETWORK": "tcp4", "IMGPROXY_BIND": "/tmp/a.sock"], "--network", "listens on TCP, and --unix-socket on a Unix socket"),
        (["--network", "tcp6", "--host", "127.0.0.1"], [:], "--network", "127.0.0.1 is an IPv4 address, and the network is IPv6 (tcp6)"),
        ([], ["IMGPROXY_SO_REUSEPORT": "true"], "IMGPROXY_SO_REUSEPORT", "Hummingbird's listener sets SO_REUSEADDR only"),
        (["--path-prefix", "img"], [:], "--path-prefix", "must start with /"),
        (["--path-prefix", "/img/"], [:], "--path-prefix", "not end with one"),
        (["--unix-socket", "/tmp/" + String(repeating: "s", count: 120)], [:], "--unix-socket", "shorter than 108 bytes"),
        (["--max-queue", "10", "--requests-queue-size", "4"], [:], "--requests-queue-size", "give one of --max-queue"),
        ([], ["IMGPROXY_REQUESTS_QUEUE_SIZE": "4", "IMAGERY_MAX_QUEUE": "10"], "--requests-queue-size", "give one of --max-queue"),
        (["--allow-origin", "https://a.example\u{7}"], [:], "--allow-origin", "visible ASCII"),
        ([], ["IMGPROXY_SECRET": "a", "IMAGERY_SECRET": "b"], "IMGPROXY_SECRET", "values that differ"),
    ] as [([String], [String: String], String, String)])
    func serverRefusals(arguments: [String], environment: [String: String], setting: String, reason: String) async throws {
        let error = try #require(await Self.refusal(arguments, environment: environment), "\(arguments) \(environment) was accepted")
        #expect(error.setting == setting, "\(error)")
        #expect(error.reason.contains(reason), "\(error)")
        #expect(!error.description.contains("\"a\"") && !error.reason.contains("(b against a)"), "a secret is never repeated")
    }
}
