import Foundation
import Imagery
import ImageryHTTPClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Which sources the server fetches: the allowlist of prefixes (on the source and on every
/// redirect hop), the SSRF guard on every address a connection goes to, and `local://` paths
/// kept inside the local root.
struct SourcePolicy: Sendable {
    /// Source URL prefixes that may be fetched, as imgproxy writes them (`*` matches any run of
    /// characters but `/`); empty allows any.
    var allowedPrefixes: [String] = []
    /// Whether loopback origins may be fetched (for local use and tests).
    var allowLoopback = false
    /// Whether private and shared (CGNAT) origins may be fetched.
    var allowPrivate = false
    /// Whether link-local origins may be fetched.
    var allowLinkLocal = false
    /// With ``allowLoopback``, the loopback addresses that may be fetched; `nil` (the default)
    /// allows every one. Not a setting: it lets a test (or an embedder) admit the loopback
    /// address its origin listens on and keep the others refused by the same check a public
    /// deployment uses, so a refusal seen in a test is the guard's own.
    var loopbackAddresses: Set<String>?
    /// The directory `local:///path` sources are read from; `nil` turns them off.
    var localRoot: String?
    /// Whether `s3://bucket/key` sources are read (`--use-s3`).
    var allowsS3 = false
    /// Buckets `s3://` sources may name; empty allows any not denied.
    var allowedBuckets: [String] = []
    /// Buckets `s3://` sources may never name.
    var deniedBuckets: [String] = []
    /// What separates a `local://` or `s3://` source's path from its query (an S3 version, or a
    /// query a local file ignores), as imgproxy's `IMGPROXY_SOURCE_URL_QUERY_SEPARATOR`; empty
    /// reads the whole URL as the path. http(s) sources keep their queries whatever it says.
    var querySeparator = "?"
    /// How hosts are resolved for the connection guard. Injectable, so the guard's decisions
    /// are tested without DNS.
    var resolver: any HostResolving = SystemHostResolver()

    /// The pipeline source for a request's source URL, or why it is refused. Nothing is
    /// fetched here: addresses are checked when each hop connects.
    func source(for url: String) throws(ServerError) -> ImageSource {
        if url.hasPrefix("local://") {
            return .file(try localPath(for: url))
        }
        if url.hasPrefix("s3://") { return try s3Source(for: url) }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = parsed.host, !host.isEmpty
        else { throw .badRequest("source: not an http(s) or local:// URL") }
        guard isAllowed(url) else { throw .forbidden("source: not in the allowed sources") }
        if let literal = AddressClassifier.classify(host), !literal.isAllowed(allowLoopback: allowsLoopback(at: host), allowPrivate: allowPrivate, allowLinkLocal: allowLinkLocal) {
            throw .forbidden("source: \(literal.rawValue) addresses are refused")
        }
        return .url(parsed)
    }

    /// An `s3://` source in an allowed bucket. The endpoint is the operator's, so neither the
    /// prefix allowlist nor the address guard applies; the bucket lists do.
    private func s3Source(for url: String) throws(ServerError) -> ImageSource {
        guard allowsS3 else { throw .forbidden("source: s3:// sources are off (no --use-s3)") }
        let (path, query) = splittingQuery(url.dropFirst("s3://".count))
        let bucket = path.prefix { $0 != "/" }
        guard S3Location.isValidBucket(String(bucket)), let key = path.dropFirst(bucket.count + 1).removingPercentEncoding, !key.isEmpty else {
            throw .badRequest("source: not a valid s3://bucket/key URL")
        }
        guard S3Location.isSafeKey(key) else { throw .badRequest("source: an s3:// key may not have a . or .. segment") }
        let version = query.flatMap { $0.isEmpty ? nil : ($0.removingPercentEncoding ?? String($0)) }
        let location = S3Location(bucket: String(bucket), key: key, versionID: version)
        guard !deniedBuckets.contains(location.bucket), allowedBuckets.isEmpty || allowedBuckets.contains(location.bucket) else {
            throw .forbidden("source: bucket \(location.bucket) is not allowed")
        }
        return .url(location.sourceURL)
    }

    /// A non-HTTP source's path and query, split at the first ``querySeparator``.
    private func splittingQuery(_ text: Substring) -> (path: Substring, query: Substring?) {
        guard !querySeparator.isEmpty, let range = text.range(of: querySeparator) else { return (text, nil) }
        return (text[..<range.lowerBound], text[range.upperBound...])
    }

    /// The check every hop passes before it is requested, the first included: the allowlist.
    func checkHop(_ url: URL) throws(DataLoadingError) {
        guard isAllowed(url.absoluteString) else {
            throw .redirectRefused(source: url.host ?? "source", detail: "not in the allowed sources")
        }
    }

    /// The SSRF guard: the check of every address a hop's host resolves to, before connecting.
    func checkAddress(_ address: String, host: String) throws(DataLoadingError) {
        let kind = AddressClassifier.classify(address) ?? .reserved
        guard kind.isAllowed(allowLoopback: allowsLoopback(at: address), allowPrivate: allowPrivate, allowLinkLocal: allowLinkLocal) else {
            throw .redirectRefused(source: host, detail: "\(kind.rawValue) addresses are refused")
        }
    }

    /// Whether a loopback origin at `address` (an IP literal, IPv6 in brackets or not) may be fetched.
    private func allowsLoopback(at address: String) -> Bool {
        guard allowLoopback else { return false }
        guard let loopbackAddresses else { return true }
        let bare = address.hasPrefix("[") && address.hasSuffix("]") ? String(address.dropFirst().dropLast()) : address
        return loopbackAddresses.contains(bare)
    }

    /// The connection guard for the HTTP loader: this policy's address check, on this policy's resolver.
    var connectionGuard: ConnectionGuard {
        let policy = self
        return ConnectionGuard(resolver: resolver) { address, host throws(DataLoadingError) in try policy.checkAddress(address, host: host) }
    }

    /// Whether `url` matches an allowed prefix (any, when none are set).
    func isAllowed(_ url: String) -> Bool {
        allowedPrefixes.isEmpty || allowedPrefixes.contains { Self.matches(url, prefix: $0) }
    }

    /// Whether `url` starts with `prefix`, where `*` in the prefix matches any run of
    /// characters within one part of a host or path (imgproxy's `IMGPROXY_ALLOWED_SOURCES`):
    /// never `/`, and never `?`, `#`, `@`, `\` or `:`, which would let `*.cdn.test` match
    /// `evil.test?.cdn.test`, whose host is `evil.test`.
    static func matches(_ url: String, prefix: String) -> Bool {
        var text = Substring(url)
        var parts = prefix.split(separator: "*", omittingEmptySubsequences: false)[...]
        guard let first = parts.popFirst(), text.hasPrefix(first) else { return false }
        text = text.dropFirst(first.count)
        for part in parts {
            // `*` takes the shortest run before `part` within the current path segment.
            var candidate = text
            while !candidate.hasPrefix(part) {
                guard let next = candidate.first, !"/?#@\\:".contains(next) else { return false }
                candidate = candidate.dropFirst()
            }
            text = candidate.dropFirst(part.count)
        }
        return true
    }

    /// `local:///a/b.jpg` → `<root>/a/b.jpg`, refused when the resolved path (symlinks
    /// followed) leaves the root.
    func localPath(for url: String) throws(ServerError) -> String {
        guard let localRoot else { throw .forbidden("source: local sources are off (no --local-root)") }
        let relative = String(splittingQuery(url.dropFirst("local://".count)).path)
        guard let decoded = relative.removingPercentEncoding, !decoded.contains("\0") else {
            throw .badRequest("source: not a valid local path")
        }
        guard let root = Self.realPath(localRoot) else { throw .notFound("source: not found") }
        let joined = URL(fileURLWithPath: root).appendingPathComponent(decoded).standardizedFileURL.path
        // A path that does not exist cannot escape; one that does is judged by its real path.
        let resolved = Self.realPath(joined) ?? joined
        guard resolved == root || resolved.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            throw .forbidden("source: outside the local root")
        }
        return resolved
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
