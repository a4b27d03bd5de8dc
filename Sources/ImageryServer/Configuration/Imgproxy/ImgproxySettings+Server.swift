import Foundation

extension ImgproxySettings {
    static let signature: [ImgproxySetting] = [
        .same("KEY", "key"), .same("SALT", "salt"), .same("SIGNATURE_SIZE", "signature-size"), .same("TRUSTED_SIGNATURES", "trusted-signatures"),
    ]

    static let server: [ImgproxySetting] = [
        .converted("BIND", .text, sets: ["host", "port"], note: "host:port, or :port for every interface") { configuration, value throws(SettingError.Reason) in
            guard case let .text(bind) = value, let colon = bind.lastIndex(of: ":"), let port = Int(bind[bind.index(after: colon)...]),
                  (0...65535).contains(port)
            else { throw .invalid("expected host:port or :port") }
            var host = String(bind[..<colon])
            if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            configuration.host = host.isEmpty ? "0.0.0.0" : host
            configuration.port = port
            return nil
        },
        pending("NETWORK", "listening on another network than TCP"),
        pending("TIMEOUT", "a request's total time limit"),
        pending("GRACEFUL_STOP_TIMEOUT", "the graceful stop's time limit"),
        pending("READ_REQUEST_TIMEOUT", "the request read timeout"),
        pending("WRITE_RESPONSE_TIMEOUT", "the response write timeout"),
        pending("KEEP_ALIVE_TIMEOUT", "the keep-alive timeout"),
        pending("CLIENT_KEEP_ALIVE_TIMEOUT", "the origin client's keep-alive timeout"),
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
        pending("REQUESTS_QUEUE_SIZE", "a queue bound answering 429"),
        pending("MAX_CLIENTS", "a connection limit"),
        .converted("TTL", .whole, sets: ["cache-control"], note: "seconds of max-age; 0 sends no-cache") { configuration, value throws(SettingError.Reason) in
            guard case let .whole(seconds) = value, seconds >= 0 else { throw .outOfRange("0 or more seconds") }
            configuration.cacheControl = seconds == 0 ? "no-cache" : "max-age=\(seconds), public"
            return nil
        },
        .same("CACHE_CONTROL_PASSTHROUGH", "cache-control-passthrough"),
        .same("SET_CANONICAL_HEADER", "set-canonical-header"),
        pending("SO_REUSEPORT", "SO_REUSEPORT"),
        pending("PATH_PREFIX", "a path prefix"),
        .converted("USER_AGENT", .text, sets: ["user-agent"], note: "%current_version is this server's version") { configuration, value throws(SettingError.Reason) in
            guard case let .text(agent) = value else { throw .invalid("expected text") }
            let expanded = agent.replacingOccurrences(of: "%current_version", with: ServerVersion.current)
            try ServerSettings.setting(named: "user-agent").apply(&configuration, .text(expanded))
            return nil
        },
        .same("USE_ETAG", "use-etag"),
        .same("ETAG_BUSTER", "etag-buster"),
        .same("USE_LAST_MODIFIED", "use-last-modified"),
        .same("LAST_MODIFIED_BUSTER", "last-modified-buster"),
        pending("ENABLE_DEBUG_HEADERS", "debug headers"),
    ]
}
