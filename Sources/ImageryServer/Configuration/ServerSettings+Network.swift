extension ServerSettings {
    static let network: [ServerSetting] = [
        .required("host", "The address to listen on (0.0.0.0 for every interface).", \.host) { host in
            host.contains(where: \.isWhitespace) ? "must not contain spaces" : nil
        }.changing(.nothingStored),
        .whole("port", "The port to listen on; 0 picks a free one.", \.port, in: 0...65535).changing(.nothingStored),
        ServerSetting(
            "network", .text, "tcp, tcp4 (IPv4 only), tcp6 (IPv6 only) or unix (with --unix-socket).", imgproxy: .converted("NETWORK"),
            show: { $0.network.rawValue }
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .text(name) = value, let network = ListenNetwork(rawValue: name.lowercased()) else {
                throw .invalid("must be tcp, tcp4, tcp6 or unix")
            }
            configuration.network = network
        }.changing(.nothingStored),
        .text("unix-socket", "A Unix domain socket to listen on instead of --host and --port (its file is replaced at start and removed at exit).", \.unixSocket) { path in
            // sun_path holds 108 bytes with its terminating zero.
            guard path.hasPrefix("/") || path.hasPrefix(".") else { return "must be a path (/run/imagery.sock)" }
            return path.utf8.count < 108 ? nil : "must be shorter than 108 bytes (a Unix socket's address limit)"
        }.changing(.nothingStored),
        .text("path-prefix", "A path every route sits under, /health and /metrics included: /img serves /img/{signature}/… and /img/health.", \.pathPrefix, imgproxy: .same("PATH_PREFIX")) { prefix in
            prefix.hasPrefix("/") && !prefix.hasSuffix("/") && !prefix.contains(where: { $0.isWhitespace || "?#%".contains($0) })
                ? nil : "must start with / and not end with one (/img), without spaces, ?, # or %"
        }.changing(.nothingStored),
        .whole("max-clients", "Connections served at once; more wait in the listen backlog until one closes. 0: no limit.", \.maximumClients, in: 0...1_000_000, imgproxy: .same("MAX_CLIENTS")).changing(.nothingStored),
        .text("instance-name", "The X-Imagery-Instance header on every response, to tell instances apart behind a load balancer (default: host:port as bound).", \.instanceName) { name in
            (1...128).contains(name.count) && name.allSatisfy({ (33...126).contains($0.asciiValue ?? 0) })
                ? nil : "must be 1 to 128 visible ASCII characters (it is an HTTP header value)"
        }.changing(.nothingStored),
        .text("health-check-path", "A second path that answers as /health does.", \.healthCheckPath, imgproxy: .same("HEALTH_CHECK_PATH")) { path in
            path.hasPrefix("/") && path.count > 1 && !path.contains(where: \.isWhitespace) && !["/health", "/metrics"].contains(path)
                ? nil : "must be a path other than /, /health and /metrics"
        }.changing(.nothingStored),
    ]

    static let timeouts: [ServerSetting] = [
        .seconds("request-timeout", "Seconds an image or /info request may take in all, waiting and downloading included, before it is answered 503.", \.requestTimeout, in: 0.001...3600, imgproxy: .converted("TIMEOUT", note: "default 10 s")).changing(.nothingStored),
        .seconds("read-request-timeout", "Seconds a client may take to send a request, body included (from its first byte on a new connection).", \.readRequestTimeout, in: 0.001...3600, imgproxy: .converted("READ_REQUEST_TIMEOUT")).changing(.nothingStored),
        .seconds("write-response-timeout", "Seconds writing one response may take before the connection is closed.", \.writeResponseTimeout, in: 0.001...3600, imgproxy: .converted("WRITE_RESPONSE_TIMEOUT")).changing(.nothingStored),
        .seconds("keep-alive-timeout", "Seconds an idle kept-alive connection stays open (above nginx's 60 s upstream keepalive_timeout); 0 turns keep-alive off.", \.keepAliveTimeout, in: 0...3600, imgproxy: .converted("KEEP_ALIVE_TIMEOUT", note: "default 10 s")).changing(.nothingStored),
        .seconds("client-keep-alive-timeout", "Seconds an idle connection to an origin is kept for the next download; 0 opens one per download.", \.clientKeepAliveTimeout, in: 0...3600, imgproxy: .converted("CLIENT_KEEP_ALIVE_TIMEOUT")).changing(.nothingStored),
        .seconds("graceful-stop-timeout", "Seconds SIGTERM waits for in-flight requests and background writes before cancelling them; 0 cancels at once.", \.gracefulStopTimeout, in: 0...3600, imgproxy: .converted("GRACEFUL_STOP_TIMEOUT", note: "default 20 s")).changing(.nothingStored),
    ]
}
