import Foundation

extension ImgproxySettings {
    static let server: [ImgproxySetting] = [
        .converted("BIND", .text, sets: ["host", "port", "unix-socket"], note: "host:port, :port for every interface, or a Unix socket's path (with IMGPROXY_NETWORK=unix)") {
            configuration, value throws(SettingError.Reason) in
            guard case let .text(bind) = value else { throw .invalid("expected host:port, :port or a socket path") }
            if bind.hasPrefix("/") || bind.hasPrefix(".") {
                try ServerSettings.setting(named: "unix-socket").apply(&configuration, .text(bind))
                return nil
            }
            guard let address = HostAndPort(parsing: bind) else { throw .invalid("expected host:port, :port or a socket path") }
            configuration.host = address.host
            configuration.port = address.port
            return nil
        },
        .converted("NETWORK", .text, sets: ["network"], note: "tcp, tcp4, tcp6 or unix (unixpacket is refused)") { configuration, value throws(SettingError.Reason) in
            guard case let .text(name) = value, name.lowercased() != "unixpacket" else {
                throw .invalid("unixpacket (SOCK_SEQPACKET) is not served: HTTP here runs on stream sockets; use unix")
            }
            try ServerSettings.setting(named: "network").apply(&configuration, value)
            return nil
        },
        .seconds("TIMEOUT", sets: "request-timeout", minimum: 1),
        .seconds("GRACEFUL_STOP_TIMEOUT", sets: "graceful-stop-timeout", minimum: 0, note: "0 cancels in-flight requests at once"),
        .seconds("READ_REQUEST_TIMEOUT", sets: "read-request-timeout", minimum: 1),
        .seconds("WRITE_RESPONSE_TIMEOUT", sets: "write-response-timeout", minimum: 1),
        .seconds("KEEP_ALIVE_TIMEOUT", sets: "keep-alive-timeout", minimum: 0, note: "0 turns keep-alive off"),
        .seconds("CLIENT_KEEP_ALIVE_TIMEOUT", sets: "client-keep-alive-timeout", minimum: 0, note: "0 opens a connection per download"),
        .converted("DOWNLOAD_TIMEOUT", .number, sets: ["upstream-timeout"], note: "seconds") { configuration, value throws(SettingError.Reason) in
            guard case let .number(seconds) = value, seconds > 0, seconds <= 3600 else { throw .outOfRange("above 0, at most 3600 seconds") }
            configuration.upstreamTimeout = .seconds(seconds)
            return nil
        },
        .converted("WORKERS", .whole, sets: ["concurrency"], note: "images processed at once") { configuration, value throws(SettingError.Reason) in
            guard case let .whole(workers) = value, (1...1024).contains(workers) else { throw .outOfRange("1...1024") }
            configuration.concurrentProcessing = workers
            return nil
        },
        .converted("REQUESTS_QUEUE_SIZE", .whole, sets: ["requests-queue-size"], note: "requests waiting beyond the workers, then 429; imgproxy's 0 (no limit) keeps --max-queue") {
            configuration, value throws(SettingError.Reason) in
            guard case let .whole(size) = value, size >= 0 else { throw .invalid("expected 0 or more requests") }
            guard size > 0 else {
                return "IMGPROXY_REQUESTS_QUEUE_SIZE=0 means no queue limit in imgproxy; imagery-server keeps --max-queue's \(configuration.maximumQueue) requests in flight (then 503)"
            }
            try ServerSettings.setting(named: "requests-queue-size").apply(&configuration, value)
            return nil
        },
        .converted("TTL", .whole, sets: ["cache-control"], note: "seconds of max-age; 0 sends no-cache") { configuration, value throws(SettingError.Reason) in
            guard case let .whole(seconds) = value, seconds >= 0 else { throw .outOfRange("0 or more seconds") }
            configuration.cacheControl = seconds == 0 ? "no-cache" : "max-age=\(seconds), public"
            return nil
        },
        .refused(
            "SO_REUSEPORT", why: "Hummingbird's listener sets SO_REUSEADDR only (its server configuration has no SO_REUSEPORT, and the socket is bound inside it), so processes cannot share a port",
            instead: "one port per instance behind a load balancer (deploy/nginx)"
        ),
        .converted("USER_AGENT", .text, sets: ["user-agent"], note: "%current_version is this server's version") { configuration, value throws(SettingError.Reason) in
            guard case let .text(agent) = value else { throw .invalid("expected text") }
            let expanded = agent.replacingOccurrences(of: "%current_version", with: ServerVersion.current)
            try ServerSettings.setting(named: "user-agent").apply(&configuration, .text(expanded))
            return nil
        },
    ]
}
