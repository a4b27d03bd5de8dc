import ImageryHTTPClient

extension ServerConfiguration {
    /// Result storage's store, bucket and key prefix (empty, or ending in `/`), with
    /// `--s3-result-storage`; `nil` without it.
    ///
    /// - Throws: ``ServerSetupError/s3(_:)`` for a malformed value or no credentials.
    func resultStorage() throws(ServerSetupError) -> (store: S3Configuration, bucket: String, prefix: String)? {
        guard let s3ResultStorage else { return nil }
        guard let parts = Self.resultStorageParts(s3ResultStorage) else { throw .s3("--s3-result-storage: \(s3ResultStorage) is not bucket[/prefix]") }
        return (try s3Store(for: "--s3-result-storage"), parts.bucket, parts.prefix)
    }

    /// `bucket[/prefix]` split, the prefix given a trailing `/`; `nil` for a bucket name S3
    /// does not allow, or a prefix with a `.` or `..` segment (every key stored is the prefix
    /// and a SHA-256 in hex, so the prefix is the only part that could be one).
    static func resultStorageParts(_ value: String) -> (bucket: String, prefix: String)? {
        let parts = value.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let bucket = String(parts[0])
        guard S3Location.isValidBucket(bucket) else { return nil }
        let prefix = parts.count > 1 ? String(parts[1].drop { $0 == "/" }) : ""
        guard S3Location.isSafeKey(prefix) else { return nil }
        return (bucket, prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/")
    }
}
