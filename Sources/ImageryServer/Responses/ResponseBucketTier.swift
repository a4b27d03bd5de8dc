import Imagery
import ImageryHTTPClient
import ImageryImgproxy
import Logging
import NIOCore

/// Result storage: encoded responses as objects in an S3-compatible bucket, named by the
/// SHA-256 of their ``ResponseVariantKey`` under a prefix, so that every instance on every
/// machine answers a URL any of them has answered without a download, a decode or an encode.
///
/// Each object is the response's body, with its content type as the object's and, in metadata,
/// its ETag, `Vary`, when it was made, what its source said about freshness (`Cache-Control`,
/// `Expires`, `Last-Modified`) and its ``ResponseFacts``, beside the body's checksum and the
/// entry format's version: an object of an older version (without the source's freshness) is a
/// miss, made again. The store is a cache: a lookup that fails or
/// outlasts its short deadline is a miss, counted and logged, and the request is processed; a
/// ``CircuitBreaker`` stops asking a store that keeps failing, so a silent one does not add its
/// deadline to every request.
struct ResponseBucketTier: ResponseStoring {
    let client: S3ObjectClient
    let bucket: String
    /// Empty, or ending in `/`.
    let prefix: String
    let lookupTimeout: Duration
    let writeTimeout: Duration
    let breaker: CircuitBreaker
    let writes: BackgroundWrites
    /// How the headers of a hit are written.
    let policy: ResponseHeaderPolicy
    let metrics: ServerMetrics
    let logger: Logger

    var tier: ServerMetrics.Tier { .bucket }

    /// Where the response for `key` is stored.
    func location(for key: ResponseVariantKey) -> S3Location {
        S3Location(bucket: bucket, key: prefix + key.digest)
    }

    func response(for key: ResponseVariantKey) async -> CachedResponse? {
        guard breaker.allowsCall() else {
            metrics.resultStorageSkipped(.lookup)
            return nil
        }
        let object: S3ObjectClient.Object?
        do throws(S3ObjectClient.Failure) {
            object = try await client.object(at: location(for: key), within: lookupTimeout)
        } catch {
            failed(error, during: .lookup, key: key)
            return nil
        }
        breaker.recordSuccess()
        // An object without the metadata this version writes is not one of its entries.
        guard let object, let contentType = object.contentType, object.metadata[Self.versionName] == Self.version,
              let etag = object.metadata[Self.etagName], let madeAt = object.metadata[Self.madeName].flatMap(Int.init)
        else { return nil }
        let source = SourceHeaders(
            cacheControl: object.metadata[Self.cacheControlName], expires: object.metadata[Self.expiresName],
            lastModified: object.metadata[Self.lastModifiedName]
        )
        return CachedResponse(
            body: object.body, contentType: contentType, etag: etag, varyAccept: object.metadata[Self.varyName] == "accept",
            source: source, facts: ResponseFacts(stored: object.metadata[Self.factsName] ?? ""), madeAt: madeAt, policy: policy
        )
    }

    func store(_ response: CachedResponse, for key: ResponseVariantKey) {
        guard response.body.readableBytes <= Self.maximumObjectBytes else { return }   // it would never be read back
        var metadata = [
            Self.versionName: Self.version, Self.etagName: response.etag, Self.varyName: response.varyAccept ? "accept" : "none",
            Self.madeName: String(response.madeAt),
        ]
        let facts = response.facts.stored
        if !facts.isEmpty { metadata[Self.factsName] = facts }
        let source = [
            (Self.cacheControlName, response.source.cacheControl), (Self.expiresName, response.source.expires),
            (Self.lastModifiedName, response.source.lastModified),
        ]
        for case let (name, value?) in source {
            // Metadata travels as headers: a value that cannot would fail the upload.
            guard value.allSatisfy({ (32...126).contains($0.asciiValue ?? 0) }) else { return }
            metadata[name] = value
        }
        guard breaker.allowsCall() else {
            metrics.resultStorageSkipped(.write)
            return
        }
        metrics.responseWriteBegun(.bucket)
        let written = metadata
        writes.run { [self] in
            do throws(S3ObjectClient.Failure) {
                try await client.put(
                    response.body, at: location(for: key), contentType: response.contentType, metadata: written, within: writeTimeout
                )
                breaker.recordSuccess()
            } catch {
                failed(error, during: .write, key: key)
            }
        }
    }

    /// Counts and logs a failed call. A damaged or oversized object is the entry's fault, not
    /// the store's, so only the other failures count toward opening the breaker.
    private func failed(_ failure: S3ObjectClient.Failure, during operation: ServerMetrics.StorageOperation, key: ResponseVariantKey) {
        if failure == .cancelled { return }   // the client left; the store said nothing
        metrics.resultStorageFailed(operation)
        let opened: Bool
        switch failure {
        case .damaged, .tooLarge: opened = false
        default: opened = breaker.recordFailure()
        }
        logger.warning("result storage \(operation.rawValue) failed; the request is processed instead", metadata: [
            "bucket": "\(bucket)", "object": "\(location(for: key).key)", "error": "\(failure)",
        ])
        if opened {
            logger.warning("result storage keeps failing: not asked for \(breaker.cooldown) (then one request probes it)", metadata: [
                "bucket": "\(bucket)", "failures in a row": "\(breaker.failureThreshold)",
            ])
        }
    }

    /// The largest object read back; a larger response is not stored, and a larger object
    /// found is a miss.
    static let maximumObjectBytes = 64 << 20

    static let etagName = "imagery-etag"
    static let varyName = "imagery-vary"
    /// The entry format's version: 2 added the source's freshness and when it was made.
    static let versionName = "imagery-format"
    static let version = "2"
    static let madeName = "imagery-made"
    /// The answer's ``ResponseFacts``: optional, so that objects written before them (and
    /// without them) are still read, in either direction.
    static let factsName = "imagery-facts"
    static let cacheControlName = "imagery-source-cache-control"
    static let expiresName = "imagery-source-expires"
    static let lastModifiedName = "imagery-source-last-modified"
}
