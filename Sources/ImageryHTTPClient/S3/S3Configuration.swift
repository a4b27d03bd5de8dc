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

    /// Source names that stand for access points (imgproxy's `IMGPROXY_S3_ACCESS_POINTS`): a
    /// location whose bucket is one of them is read through the access point, signed for its
    /// region. Default: none.
    package var accessPoints: [String: S3AccessPoint] = [:]
    /// Where the signing credentials come from when they are an assumed role's (imgproxy's
    /// `IMGPROXY_S3_ASSUME_ROLE_ARN`); `nil` signs with ``credentials``. Default: `nil`.
    package var credentialsProvider: AWSAssumedRoleCredentials?
    /// How client-side encrypted objects are decrypted when sources are read (imgproxy's
    /// `IMGPROXY_S3_USE_DECRYPTION_CLIENT`); `nil` reads every object as stored. Result
    /// storage never uses it: what it writes is not encrypted. Default: `nil`.
    package var decryption: S3ClientSideDecryption?

    /// A store at `endpoint` (AWS's by default), in `region`.
    public init(credentials: AWSCredentials, region: String = "us-east-1", endpoint: URL? = nil, usesPathStyle: Bool = true) {
        self.credentials = credentials
        self.region = region
        self.endpoint = endpoint
        self.usesPathStyle = usesPathStyle
    }

    /// The signed request for `location` with the credentials of the moment: the assumed
    /// role's (assumed again first when they are due), else ``credentials``.
    ///
    /// - Throws: ``AWSAssumedRoleCredentials/Failure`` when the role cannot be assumed and no
    ///   credentials it gave still work.
    package func signedRequest(
        for location: S3Location, method: String = "GET", extra: [(String, String)] = [],
        payloadHash: String = AWSSignatureV4.emptyPayload
    ) async throws(AWSAssumedRoleCredentials.Failure) -> (url: URL, headers: [(String, String)]) {
        let signing = try await signingCredentials()
        return request(for: location, method: method, extra: extra, payloadHash: payloadHash, credentials: signing)
    }

    /// The credentials of the moment, which KMS calls for ``decryption`` share with S3: the
    /// assumed role's (assumed again first when they are due), else ``credentials``.
    package func signingCredentials() async throws(AWSAssumedRoleCredentials.Failure) -> AWSCredentials {
        try await credentialsProvider?.credentials() ?? credentials
    }

    /// The signed request for `location`: its URL and headers. `extra` headers (a content
    /// type, `x-amz-meta-*`) are signed and sent; `payloadHash` is the body's SHA-256 in hex,
    /// so the store refuses a body that arrives damaged. `credentials` default to
    /// ``credentials``.
    func request(
        for location: S3Location, method: String = "GET", extra: [(String, String)] = [],
        payloadHash: String = AWSSignatureV4.emptyPayload, date: Date = Date(), credentials: AWSCredentials? = nil
    ) -> (url: URL, headers: [(String, String)]) {
        let url: URL, region: String
        if let point = accessPoints[location.bucket] {
            (url, region) = (point.url(for: location, endpoint: endpoint, pathStyle: usesPathStyle), point.region)
        } else {
            (url, region) = (location.url(endpoint: endpoint ?? S3Location.awsEndpoint(region: self.region), pathStyle: usesPathStyle), self.region)
        }
        let signer = AWSSignatureV4(credentials: credentials ?? self.credentials, region: region)
        return (url, signer.headers(method: method, url: url, extra: extra, payloadHash: payloadHash, date: date))
    }
}
