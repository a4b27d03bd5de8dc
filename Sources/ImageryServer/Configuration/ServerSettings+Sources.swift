extension ServerSettings {
    static let sources: [ServerSetting] = [
        .whole("max-source-bytes", "The largest source accepted, in bytes.", \.maximumSourceBytes, in: 1...(1 << 40), imgproxy: "IMGPROXY_MAX_SRC_FILE_SIZE (default 0, no limit)"),
        .seconds("upstream-timeout", "Seconds one source may take in all, redirects and retries included.", \.upstreamTimeout, in: 0.1...3600, imgproxy: "IMGPROXY_DOWNLOAD_TIMEOUT (default 5 s)"),
        .whole("max-redirects", "Redirects followed for one source.", \.maximumRedirects, in: 0...20, imgproxy: "IMGPROXY_MAX_REDIRECTS (default 10)"),
        .required("user-agent", "The User-Agent sent to origins.", \.userAgent, imgproxy: "IMGPROXY_USER_AGENT") { agent in
            agent.allSatisfy({ (32...126).contains($0.asciiValue ?? 0) }) ? nil : "must be visible ASCII and spaces (it is an HTTP header value)"
        },
    ]
}
