import Foundation

/// Where `s3://` sources are read from, and as whom: an S3-compatible endpoint (AWS's own for
/// the region by default), its region, path-style or virtual-hosted URLs, and the credentials
/// every request is signed with (AWS Signature Version 4).
///
/// The endpoint is the operator's: no SSRF guard and no redirect applies to it.
///
/// ```swift
/// var http = HTTPClientDataLoader.Configuration()
/// http.s3 = S3Configuration(
///     credentials: AWSCredentials(environment: ProcessInfo.processInfo.environment)!,
///     region: "us-east-1", endpoint: URL(string: "http://127.0.0.1:9000"), usesPathStyle: true
/// )
/// // ImageRequest(url: URL(string: "s3://photos/album/a.jpg")!) now loads from the bucket.
/// ```
public struct S3Configuration: Sendable {
    /// Who signs every request.
    public var credentials: AWSCredentials
    /// The region the signature names (`us-east-1` for most S3-compatible stores).
    public var region: String
    /// `nil` for AWS's endpoint in ``region``.
    public var endpoint: URL?
    /// `endpoint/bucket/key` rather than `bucket.endpoint/key`: what most S3-compatible stores
    /// (MinIO, Ceph, moto) want.
    public var usesPathStyle: Bool

    /// A store at `endpoint` (AWS's by default), in `region`.
    public init(credentials: AWSCredentials, region: String = "us-east-1", endpoint: URL? = nil, usesPathStyle: Bool = true) {
        self.credentials = credentials
        self.region = region
        self.endpoint = endpoint
        self.usesPathStyle = usesPathStyle
    }

    /// The signed request for `location`: its URL and headers. `extra` headers (a content
    /// type, `x-amz-meta-*`) are signed and sent; `payloadHash` is the body's SHA-256 in hex,
    /// so the store refuses a body that arrives damaged.
    func request(
        for location: S3Location, method: String = "GET", extra: [(String, String)] = [],
        payloadHash: String = AWSSignatureV4.emptyPayload, date: Date = Date()
    ) -> (url: URL, headers: [(String, String)]) {
        let url = location.url(endpoint: endpoint ?? S3Location.awsEndpoint(region: region), pathStyle: usesPathStyle)
        let signer = AWSSignatureV4(credentials: credentials, region: region)
        return (url, signer.headers(method: method, url: url, extra: extra, payloadHash: payloadHash, date: date))
    }
}
