/// What a loader answers for a source: what the source said about its bytes, and the bytes
/// themselves as they arrive.
///
/// ``DataLoading/response(for:)`` returns it as soon as the source has answered (for HTTP, a
/// 2xx head), before the body has arrived; the pipeline reads ``body`` to its end, handing
/// each chunk to progress and, with previews on, to the progressive decoder.
///
/// ```swift
/// let response = try await loader.response(for: .url(photoURL))
/// print(response.expectedLength ?? -1, response.headers.lastModified ?? "-")
/// for try await chunk in response.body { file.write(chunk) }
/// ```
///
/// A loader whose bytes are all at hand answers with ``init(bytes:headers:)``; one that
/// streams builds its response with ``streaming(bufferedChunks:_:)``.
public struct DataResponse: Sendable {
    /// Bytes expected in all, when the source said (a `Content-Length`, a file's size).
    public var expectedLength: Int64?
    /// What the source said about its bytes that a cache downstream may need.
    public var headers: SourceHeaders
    /// The bytes, in order, as they arrive. It can be read once.
    public var body: Body

    /// A response whose body arrives as `body` says.
    public init(body: Body, expectedLength: Int64? = nil, headers: SourceHeaders = SourceHeaders()) {
        self.body = body
        self.expectedLength = expectedLength
        self.headers = headers
    }

    /// A response whose bytes are all here: a file, a closure's result, a test's fixture.
    ///
    /// ```swift
    /// func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
    ///     DataResponse(bytes: try await assets.bytes(named: source.description))
    /// }
    /// ```
    public init(bytes: [UInt8], headers: SourceHeaders = SourceHeaders()) {
        self.init(body: Body(bytes), expectedLength: Int64(bytes.count), headers: headers)
    }

    /// Reads ``body`` to its end: the whole bytes, with progress after each chunk.
    ///
    /// ```swift
    /// let bytes = try await loader.response(for: source).bytes { print($0.fraction ?? 0) }
    /// ```
    public func bytes(progress: @Sendable (DataProgress) -> Void = { _ in }) async throws(DataLoadingError) -> [UInt8] {
        try await bytes(progress: progress, received: nil)
    }

    /// ``bytes(progress:)``, also handing each chunk to `received` as it arrives.
    func bytes(
        progress: @Sendable (DataProgress) -> Void, received: (@Sendable ([UInt8]) -> Void)?
    ) async throws(DataLoadingError) -> [UInt8] {
        var body = BodyAccumulator(declared: expectedLength)
        var iterator = self.body.makeAsyncIterator()
        while let chunk = try await iterator.next() {
            body.append(chunk)
            received?(chunk)
            progress(DataProgress(completed: Int64(body.count), total: expectedLength))
        }
        return body.joined()
    }
}

/// The headers of a source's response that a cache downstream may need: its type, its
/// freshness and its validators. Empty for files and custom sources.
///
/// ```swift
/// if let modified = response.headers.lastModified { print("changed \(modified)") }
/// ```
public struct SourceHeaders: Sendable, Hashable {
    /// `Content-Type`.
    public var contentType: String?
    /// `Cache-Control`.
    public var cacheControl: String?
    /// `Expires`.
    public var expires: String?
    /// `Last-Modified`.
    public var lastModified: String?
    /// `ETag`.
    public var etag: String?

    /// Headers with the given values; every one is optional.
    public init(
        contentType: String? = nil, cacheControl: String? = nil, expires: String? = nil, lastModified: String? = nil,
        etag: String? = nil
    ) {
        self.contentType = contentType
        self.cacheControl = cacheControl
        self.expires = expires
        self.lastModified = lastModified
        self.etag = etag
    }

    /// The headers among `fields` (name and value pairs, names in any case).
    ///
    /// ```swift
    /// let headers = SourceHeaders(fields: [("Last-Modified", "Wed, 21 Oct 2015 07:28:00 GMT")])
    /// ```
    public init(fields: some Sequence<(name: String, value: String)>) {
        self.init()
        for (name, value) in fields {
            switch name.lowercased() {
            case "content-type": contentType = value
            case "cache-control": cacheControl = value
            case "expires": expires = value
            case "last-modified": lastModified = value
            case "etag": etag = value
            default: break
            }
        }
    }
}
