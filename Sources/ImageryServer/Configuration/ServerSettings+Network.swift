extension ServerSettings {
    static let network: [ServerSetting] = [
        .required("host", "The address to listen on (0.0.0.0 for every interface).", \.host) { host in
            host.contains(where: \.isWhitespace) ? "must not contain spaces" : nil
        }.changing(.nothingStored),
        .whole("port", "The port to listen on; 0 picks a free one.", \.port, in: 0...65535).changing(.nothingStored),
        .text("instance-name", "The X-Imagery-Instance header on every response, to tell instances apart behind a load balancer (default: host:port as bound).", \.instanceName) { name in
            (1...128).contains(name.count) && name.allSatisfy({ (33...126).contains($0.asciiValue ?? 0) })
                ? nil : "must be 1 to 128 visible ASCII characters (it is an HTTP header value)"
        }.changing(.nothingStored),
        .text("health-check-path", "A second path that answers as /health does.", \.healthCheckPath, imgproxy: "IMGPROXY_HEALTH_CHECK_PATH") { path in
            path.hasPrefix("/") && path.count > 1 && !path.contains(where: \.isWhitespace) && !["/health", "/metrics"].contains(path)
                ? nil : "must be a path other than /, /health and /metrics"
        }.changing(.nothingStored),
    ]
}
