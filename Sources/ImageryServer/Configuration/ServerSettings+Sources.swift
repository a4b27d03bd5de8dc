import Foundation
import ImageryHTTPClient

extension ServerSettings {
    static let sources: [ServerSetting] = [
        .whole("max-source-bytes", "The largest source accepted, in bytes.", \.maximumSourceBytes, in: 1...(1 << 40), imgproxy: .converted("MAX_SRC_FILE_SIZE", note: "default 0, no limit")).changing(.nothingStored),
        .seconds("upstream-timeout", "Seconds one source may take in all, redirects and retries included.", \.upstreamTimeout, in: 0.1...3600, imgproxy: .converted("DOWNLOAD_TIMEOUT", note: "default 5 s")).changing(.nothingStored),
        .whole("max-redirects", "Redirects followed for one source.", \.maximumRedirects, in: 0...20, imgproxy: .same("MAX_REDIRECTS", note: "default 10")).changing(.source),
        .required("user-agent", "The User-Agent sent to origins.", \.userAgent, imgproxy: .converted("USER_AGENT")) { agent in
            agent.allSatisfy({ (32...126).contains($0.asciiValue ?? 0) }) ? nil : "must be visible ASCII and spaces (it is an HTTP header value)"
        }.changing(.source),
        .flag("ignore-ssl-verification", "Accept any TLS certificate from origins (self-signed, expired, another host's); warned about at every start.", \.ignoreSSLVerification, imgproxy: .same("IGNORE_SSL_VERIFICATION")).changing(.nothingStored),
        .flag("use-s3", "Read s3://bucket/key[?version] sources, signed with the AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN of the environment.", \.useS3, imgproxy: .same("USE_S3")).changing(.nothingStored),
        .text("s3-endpoint", "An S3-compatible store's endpoint, http(s)://host[:port] (default: AWS's for the region).", \.s3Endpoint, imgproxy: .same("S3_ENDPOINT")) { endpoint in
            URL(string: endpoint).flatMap { ["http", "https"].contains($0.scheme?.lowercased() ?? "") && $0.host != nil ? $0 : nil } == nil
                ? "must be an http(s) URL" : nil
        }.changing(.source),
        .required("s3-region", "The store's region, for signing.", \.s3Region, imgproxy: .same("S3_REGION")).changing(.source),
        .flag("s3-endpoint-use-path-style", "endpoint/bucket/key rather than bucket.endpoint/key.", \.s3UsesPathStyle, imgproxy: .same("S3_ENDPOINT_USE_PATH_STYLE")).changing(.nothingStored),
        .text("s3-assume-role-arn", "An IAM role, arn:aws:iam::<account>:role/<name>, assumed through STS at start with the AWS_* credentials; S3 requests are signed with its temporary credentials, renewed 5 minutes before they expire (STS: AWS_ENDPOINT_URL_STS, else AWS_ENDPOINT_URL, else AWS's for --s3-region).", \.s3AssumeRoleARN, imgproxy: .same("S3_ASSUME_ROLE_ARN")) { arn in
            arn.isEmpty || AWSSecurityTokenService.Role.isRoleARN(arn) ? nil : "must be an IAM role's ARN, arn:aws:iam::<12-digit account>:role/<name>"
        }.changing(.nothingStored),
        .text("s3-assume-role-external-id", "The external ID the role's trust policy requires (sts:ExternalId), sent with --s3-assume-role-arn.", \.s3AssumeRoleExternalID, imgproxy: .same("S3_ASSUME_ROLE_EXTERNAL_ID")).changing(.nothingStored),
        .text("s3-access-points", "name=arn;…: an s3://name/key source is read through the access point arn (arn:aws:s3:<region>:<account>:accesspoint/<name>), signed for its region; the bucket lists apply to name. With a path-style --s3-endpoint the ARN is the bucket in the path.", \.s3AccessPoints, imgproxy: .same("S3_ACCESS_POINTS")) { text in
            do throws(S3AccessPoint.Refusal) {
                _ = try S3AccessPoint.list(text)
                return nil
            } catch {
                return error.description
            }
        }.changing(.source),
        .flag("s3-use-decryption-client", "Decrypt objects the AWS S3 Encryption Client wrote in its v2 format (KMS with context, AES-GCM): one KMS Decrypt per object, signed as S3 requests are (KMS: AWS_ENDPOINT_URL_KMS, else AWS_ENDPOINT_URL, else AWS's for --s3-region). v1 objects are refused; objects without x-amz-key-v2 are read as stored.", \.s3UsesDecryptionClient, imgproxy: .same("S3_USE_DECRYPTION_CLIENT")).changing(.nothingStored),
        .list("s3-allowed-buckets", "Buckets s3:// sources may name (default: any not denied).", \.s3AllowedBuckets, imgproxy: .same("S3_ALLOWED_BUCKETS")).changing(.nothingStored),
        .list("s3-denied-buckets", "Buckets s3:// sources may never name.", \.s3DeniedBuckets, imgproxy: .same("S3_DENIED_BUCKETS")).changing(.nothingStored),
        .flag("cookie-passthrough", "Send a client's cookies to the source when it is on the host they were set for (--cookie-base-url's, else the request's); such answers are that client's alone.", \.cookiePassthrough.isEnabled, imgproxy: .same("COOKIE_PASSTHROUGH")).changing(.nothingStored),
        .text("cookie-base-url", "The URL whose host scopes passed cookies, in place of the request's own Host (or X-Forwarded-Host).", \.cookiePassthrough.baseURL, imgproxy: .same("COOKIE_BASE_URL")).changing(.nothingStored),
        .flag("cookie-passthrough-all", "With --cookie-passthrough, send the cookies to every http(s) source and redirect, whatever its host (they may reach any origin).", \.cookiePassthrough.passesAll, imgproxy: .same("COOKIE_PASSTHROUGH_ALL")).changing(.nothingStored),
        .text("url-replacements", "pattern=replacement;…: a source that starts with pattern (* matches within a path segment) starts with replacement instead, ${1} being what the first * matched.", \.sourceURLs.urlReplacements, imgproxy: .same("URL_REPLACEMENTS")) { text in
            do throws(SettingError.Reason) {
                _ = try SourceRewrite(replacements: text, baseURL: nil)
                return nil
            } catch {
                return error.description
            }
        }.changing(.source),
        .text("base-url", "Put in front of every source that does not start with it, after --url-replacements (plain text: the / between them is yours).", \.sourceURLs.baseURL, imgproxy: .same("BASE_URL")).changing(.source),
        .flag("base64-url-includes-filename", "The last segment of a base64 or encrypted source is a file name for search engines, dropped (/…/aHR0cDovL2EudGVzdC9hLmpwZw/puppy.jpg).", \.sourceURLs.base64URLIncludesFilename, imgproxy: .same("BASE64_URL_INCLUDES_FILENAME")).changing(.source),
        ServerSetting("source-url-query-separator", .text, "What separates a local:// or s3:// source's path from its query (an S3 version); empty reads it all as the path. http(s) sources keep their queries.", imgproxy: .same("SOURCE_URL_QUERY_SEPARATOR"), show: { $0.sourceURLQuerySeparator }) {
            configuration, value throws(SettingError.Reason) in
            guard case let .text(separator) = value else { throw .invalid("expected text") }
            guard separator.count <= 16, !separator.contains("/") else { throw .invalid("must be at most 16 characters, without /") }
            configuration.sourceURLQuerySeparator = separator
        }.changing(.source),
        .text("source-url-encryption-key", "The AES-CBC key of encrypted sources (/enc/…), hex: 16, 24 or 32 bytes (default: /enc/ URLs refused).", \.sourceURLs.encryptionKeyHex, secret: true, imgproxy: .same("SOURCE_URL_ENCRYPTION_KEY"), check: ServerConfiguration.encryptionKeyProblem)
            .changing(.source).digesting { configuration, _ in configuration.encryptionKeyIdentity },
    ]
}
