import Foundation

/// Where an image's bytes come from: an HTTP(S) URL, a local file, or an async closure.
///
/// A source has an ``identity``, the string that keys coalescing and caching. It is computed
/// once, when the source is made, so a cache lookup never formats a URL.
///
/// ```swift
/// let remote = ImageSource.url(URL(string: "https://example.com/a.jpg")!)
/// let privateImage = ImageSource.url(url, headers: ["Authorization": "Bearer \(token)"])
/// let local = ImageSource.file("/var/photos/b.png")
/// let generated = ImageSource.custom(id: "avatar-42") { try await database.avatar(42) }
/// ```
public struct ImageSource: Sendable, CustomStringConvertible {
    /// What the source is.
    public enum Kind: Sendable {
        /// An `http`, `https` or `file` URL, with extra request headers.
        case url(URL, headers: [String: String])
        /// A local file path.
        case file(path: String)
        /// Bytes produced by a caller's closure; `id` names them for caching.
        case custom(id: String, load: @Sendable () async throws -> [UInt8])
    }

    /// What the source is.
    public let kind: Kind

    /// The key for coalescing and caching: the URL, path or custom id, plus a digest of any
    /// credential header (`Authorization`, `Cookie`), so that two users never share an entry.
    public let identity: String

    /// The digest of credential headers, or `""`: kept apart so that a request's
    /// ``ImageRequest/cacheIdentity`` can replace the rest of the identity but never this.
    let credentialSuffix: String
    /// `identity.hashValue`, computed once (see ``ImageCacheKey``).
    let identityHash: Int
    /// Whether the bytes are already in memory (``bytes(id:_:)``).
    private(set) var isAtHand = false

    /// An `http(s)` or `file` URL, with optional request headers.
    ///
    /// Headers that carry credentials (`Authorization`, `Cookie`, `Proxy-Authorization`)
    /// change the response, so a digest of their values becomes part of ``identity``.
    public static func url(_ url: URL, headers: [String: String] = [:]) -> ImageSource {
        ImageSource(kind: .url(url, headers: headers), base: url.absoluteString, headers: headers)
    }

    /// A file on the local file system.
    public static func file(_ path: String) -> ImageSource {
        ImageSource(kind: .file(path: path), base: "file://" + path, headers: [:])
    }

    /// Bytes from any async producer (a photo library, a database, generated data).
    ///
    /// `id` must name the bytes uniquely: two sources with one id are treated as one image.
    public static func custom(id: String, _ load: @escaping @Sendable () async throws -> [UInt8]) -> ImageSource {
        ImageSource(kind: .custom(id: id, load: load), base: "custom:" + id, headers: [:])
    }

    /// ``custom(id:_:)`` for a producer of `Data`, as URLSession, Core Data and most Apple
    /// APIs return. The bytes are copied once into the pipeline's `[UInt8]`, which the decoders
    /// read without another copy.
    ///
    /// ```swift
    /// let cover = ImageSource.custom(id: "cover-\(album.id)") { try await store.coverData(for: album) }
    /// ```
    @_disfavoredOverload
    public static func custom(id: String, _ load: @escaping @Sendable () async throws -> Data) -> ImageSource {
        custom(id: id) { [UInt8](try await load()) }
    }

    /// A ``custom(id:_:)`` source of bytes the caller already holds (a server decoding a source
    /// it fetched first): read without a download slot, so a caller holding them never waits
    /// behind downloads that have yet to start.
    ///
    /// ```swift
    /// let draft = ImageRequest(source: .bytes(id: "info:" + source.identity, fetched))
    /// ```
    package static func bytes(id: String, _ bytes: [UInt8]) -> ImageSource {
        var source = custom(id: id) { bytes }
        source.isAtHand = true
        return source
    }

    private init(kind: Kind, base: String, headers: [String: String]) {
        self.kind = kind
        self.credentialSuffix = Self.credentialSuffix(headers)
        self.identity = base + credentialSuffix
        self.identityHash = identity.hashValue
    }

    /// Whether the pipeline reads the bytes without taking a download slot: they are in memory
    /// already (``bytes(id:_:)``), or on the local file system (a path or a `file:` URL).
    var isLocal: Bool {
        if isAtHand { return true }
        return switch kind {
        case .file: true
        case let .url(url, _): url.isFileURL
        case .custom: false
        }
    }

    /// The names of request headers whose values change who the response is for.
    static let credentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    private static func credentialSuffix(_ headers: [String: String]) -> String {
        let credentials = headers
            .filter { credentialHeaders.contains($0.key.lowercased()) }
            .map { $0.key.lowercased() + "=" + $0.value }
            .sorted()
        guard !credentials.isEmpty else { return "" }
        // Persisted in disk-cache keys: SHA-256, so no one can find a token from its key or
        // make two users' keys collide.
        let digest = SHA256Digest.hash(credentials.joined(separator: "\n").utf8)
        return "#credential=" + Hex.encode(digest)
    }

    /// The source for logs and errors: the URL without its query (which may carry a
    /// presigned signature or a token), the path, or the custom id. Never a header value.
    public var description: String {
        switch kind {
        case let .url(url, _):
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<url>" }
            if components.query != nil { components.query = "…" }
            components.user = nil
            components.password = nil
            return components.string?.replacingOccurrences(of: "%E2%80%A6", with: "…") ?? "<url>"
        case let .file(path): return path
        case let .custom(id, _): return "custom:\(id)"
        }
    }
}
