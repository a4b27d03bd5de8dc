import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `imagery-server health`: asks the server these settings describe for its health path, as
/// `imgproxy health` does, for container `HEALTHCHECK`s and Kubernetes exec probes. The server
/// is asked at its own address (a wildcard address is asked on loopback), under its path
/// prefix, within ``timeout``.
///
/// ```sh
/// imagery-server health && echo up     # exit 0 when /health answers 200, else 1 and why
/// ```
package enum HealthCheck {
    /// How long the server may take to answer: a health check that waits longer is itself a
    /// failure for an orchestrator.
    package static let timeout = TimeAmount.seconds(5)

    /// The URL of the health path of the server `configuration` describes: under its
    /// `--path-prefix`, over its `--unix-socket` if it has one (AsyncHTTPClient's
    /// `http+unix://` with the socket's path percent-encoded as the host).
    package static func url(for configuration: ServerConfiguration) -> String {
        let path = (configuration.pathPrefix ?? "") + "/health"
        if let socket = configuration.unixSocket {
            var allowed = CharacterSet.urlHostAllowed
            allowed.remove("/")
            return "http+unix://" + (socket.addingPercentEncoding(withAllowedCharacters: allowed) ?? socket) + path
        }
        let host: String = switch configuration.resolvedHost {
        case "0.0.0.0", "": "127.0.0.1"
        case "::", "[::]": "[::1]"
        case let host where host.contains(":") && !host.hasPrefix("["): "[\(host)]"
        case let host: host
        }
        return "http://\(host):\(configuration.port)" + path
    }

    /// Whether the server answered 200, and the one line that says what happened.
    package static func run(_ configuration: ServerConfiguration) async -> (healthy: Bool, message: String) {
        let url = url(for: configuration)
        let limit = timeout
        var clientConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: HTTPClient.Configuration.Timeout(connect: limit, read: limit))
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        clientConfiguration.tracing.tracer = nil
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        let outcome: (healthy: Bool, message: String)
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: limit)
            let body = try await response.body.collect(upTo: 4096)
            let text = String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines)
            outcome = response.status == HTTPResponseStatus.ok
                ? (true, "\(url) answered 200 \(text.prefix(200))")
                : (false, "\(url) answered \(response.status.code) \(text.prefix(200))")
        } catch {
            outcome = (false, "\(url) did not answer: \(error)")
        }
        try? await client.shutdown()
        return outcome
    }
}
