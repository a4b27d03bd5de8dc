import Foundation

/// An object in an S3 bucket, as imgproxy writes its sources: `s3://bucket/key`, or
/// `s3://bucket/key?version_id` for one version of it.
///
/// ```swift
/// let location = S3Location(URL(string: "s3://photos/album/a.jpg?3HL4kqtJlcpXroDTDmJ")!)!
/// location.bucket      // "photos"
/// location.key         // "album/a.jpg"
/// location.versionID   // "3HL4kqtJlcpXroDTDmJ"
/// location.url(endpoint: URL(string: "http://127.0.0.1:9000")!, pathStyle: true)
/// // http://127.0.0.1:9000/photos/album/a.jpg?versionId=3HL4kqtJlcpXroDTDmJ
/// ```
public struct S3Location: Sendable, Hashable, CustomStringConvertible {
    public var bucket: String
    /// The object's key, decoded (`album/a b.jpg`).
    public var key: String
    public var versionID: String?

    /// The location an `s3://` URL names; `nil` for another scheme, a bucket name S3 does not
    /// allow (3–63 lowercase letters, digits, `.` and `-`), no key, or a key with a `.` or `..`
    /// segment (see ``isSafeKey(_:)``).
    public init?(_ url: URL) {
        guard url.scheme?.lowercased() == "s3", let bucket = url.host, Self.isValidBucket(bucket) else { return nil }
        let key = Self.key(of: url)
        guard !key.isEmpty, Self.isSafeKey(key) else { return nil }
        self.init(bucket: bucket, key: key, versionID: url.query.flatMap { $0.isEmpty ? nil : ($0.removingPercentEncoding ?? $0) })
    }

    /// The object `key` in `bucket`, at `versionID` if given.
    public init(bucket: String, key: String, versionID: String? = nil) {
        self.bucket = bucket
        self.key = key
        self.versionID = versionID
    }

    /// Bucket and key, as error lines name them; never a credential.
    public var description: String { "s3://\(bucket)/\(key)" + (versionID.map { "?\($0)" } ?? "") }

    /// The key an `s3://` URL names, decoded, before any check.
    package static func key(of url: URL) -> String {
        String(url.path.drop { $0 == "/" })
    }

    /// Whether `key` has no `.` or `..` segment, however it is spelled: as it is, or
    /// percent-encoded once more (`%2e`, `%2E%2e`). S3 itself keeps such a key as a name, but
    /// the path it travels in is resolved by HTTP stacks and proxies on the way:
    /// `GET /photos/../secret/a.jpg` reaches bucket `secret`, past the bucket lists that
    /// allowed `photos`. Such keys are refused before anything is signed or sent.
    ///
    /// ```swift
    /// S3Location.isSafeKey("album/a.jpg")          // true
    /// S3Location.isSafeKey("../secret/a.jpg")      // false
    /// S3Location.isSafeKey("album/%2E%2e/a.jpg")   // false
    /// ```
    package static func isSafeKey(_ key: String) -> Bool {
        !key.split(separator: "/", omittingEmptySubsequences: false).contains { segment in
            let decoded = segment.removingPercentEncoding ?? String(segment)
            return segment == "." || segment == ".." || decoded == "." || decoded == ".."
        }
    }

    /// Whether S3 allows `name` as a bucket name; checked before the name becomes part of a
    /// host name in virtual-hosted style.
    public static func isValidBucket(_ name: String) -> Bool {
        (3...63).contains(name.utf8.count)
            && name.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 46 || $0 == 45 }
            && name.first.map { $0.isLetter || $0.isNumber } == true && name.last.map { $0.isLetter || $0.isNumber } == true
    }

    /// The HTTP URL of the object at `endpoint`: `endpoint/bucket/key` in path style (MinIO,
    /// moto, most S3-compatible stores), `bucket.endpoint-host/key` otherwise (AWS's default).
    /// The key is encoded as the signature encodes it, so the two agree.
    public func url(endpoint: URL, pathStyle: Bool) -> URL {
        var components = URLComponents()
        components.scheme = endpoint.scheme
        components.host = pathStyle ? endpoint.host : bucket + "." + (endpoint.host ?? "")
        components.port = endpoint.port
        let base = endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path
        let path = (pathStyle ? "/" + bucket : "") + "/" + key
        components.percentEncodedPath = AWSSignatureV4.encode(base + path, keepingSlashes: true)
        if let versionID { components.percentEncodedQuery = "versionId=" + AWSSignatureV4.encode(versionID, keepingSlashes: false) }
        return components.url!   // every part is encoded above
    }

    /// AWS's own endpoint for `region`.
    public static func awsEndpoint(region: String) -> URL {
        URL(string: "https://s3.\(region).amazonaws.com")!
    }
}
