import Foundation

extension ServerSettings {
    static let sources: [ServerSetting] = [
        .whole("max-source-bytes", "The largest source accepted, in bytes.", \.maximumSourceBytes, in: 1...(1 << 40), imgproxy: "IMGPROXY_MAX_SRC_FILE_SIZE (default 0, no limit)").changing(.nothingStored),
        .seconds("upstream-timeout", "Seconds one source may take in all, redirects and retries included.", \.upstreamTimeout, in: 0.1...3600, imgproxy: "IMGPROXY_DOWNLOAD_TIMEOUT (default 5 s)").changing(.nothingStored),
        .whole("max-redirects", "Redirects followed for one source.", \.maximumRedirects, in: 0...20, imgproxy: "IMGPROXY_MAX_REDIRECTS (default 10)").changing(.source),
        .required("user-agent", "The User-Agent sent to origins.", \.userAgent, imgproxy: "IMGPROXY_USER_AGENT") { agent in
            agent.allSatisfy({ (32...126).contains($0.asciiValue ?? 0) }) ? nil : "must be visible ASCII and spaces (it is an HTTP header value)"
        }.changing(.source),
        .flag("ignore-ssl-verification", "Accept any TLS certificate from origins (self-signed, expired, another host's); warned about at every start.", \.ignoreSSLVerification, imgproxy: "IMGPROXY_IGNORE_SSL_VERIFICATION").changing(.nothingStored),
        .flag("use-s3", "Read s3://bucket/key[?version] sources, signed with the AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN of the environment.", \.useS3, imgproxy: "IMGPROXY_USE_S3").changing(.nothingStored),
        .text("s3-endpoint", "An S3-compatible store's endpoint, http(s)://host[:port] (default: AWS's for the region).", \.s3Endpoint, imgproxy: "IMGPROXY_S3_ENDPOINT") { endpoint in
            URL(string: endpoint).flatMap { ["http", "https"].contains($0.scheme?.lowercased() ?? "") && $0.host != nil ? $0 : nil } == nil
                ? "must be an http(s) URL" : nil
        }.changing(.source),
        .required("s3-region", "The store's region, for signing.", \.s3Region, imgproxy: "IMGPROXY_S3_REGION").changing(.source),
        .flag("s3-endpoint-use-path-style", "endpoint/bucket/key rather than bucket.endpoint/key.", \.s3UsesPathStyle, imgproxy: "IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE").changing(.nothingStored),
        .list("s3-allowed-buckets", "Buckets s3:// sources may name (default: any not denied).", \.s3AllowedBuckets, imgproxy: "IMGPROXY_S3_ALLOWED_BUCKETS").changing(.nothingStored),
        .list("s3-denied-buckets", "Buckets s3:// sources may never name.", \.s3DeniedBuckets, imgproxy: "IMGPROXY_S3_DENIED_BUCKETS").changing(.nothingStored),
    ]
}
