import Imagery
import ImageryHTTPClient
import ImageryImgproxy
import Logging
import NIOCore

/// Result storage: encoded responses as objects in an S3-compatible bucket, named by the
/// SHA-256 of their ``ResponseVariantKey`` under a prefix, so that every instance on every
/// machine answers a URL any of them has answered without a download, a decode or an encode.
///
/// Each object is the response's body, with its content type as the object's and its ETag and
/// `Vary` in metadata, beside the body's checksum. The store is a cache: a lookup that fails or
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
    let cacheControl: String
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
        // An object without the metadata this tier writes is not one of its entries.
        guard let object, let contentType = object.contentType, let etag = object.metadata[Self.etagName] else { return nil }
        return CachedResponse(
            body: object.body, contentType: contentType, etag: etag,
            varyAccept: object.metadata[Self.varyName] == "accept", cacheControl: cacheControl
        )
    }

    func store(_ response: CachedResponse, for key: ResponseVariantKey) {
        guard response.body.readableBytes <= Self.maximumObjectBytes else { return }   // it would never be read back
        guard breaker.allowsCall() else {
            metrics.resultStorageSkipped(.write)
            return
        }
        metrics.responseWriteBegun(.bucket)
        let metadata = [Self.etagName: response.etag, Self.varyName: response.varyAccept ? "accept" : "none"]
        writes.run { [self] in
            do throws(S3ObjectClient.Failure) {
                try await client.put(
                    response.body, at: location(for: key), contentType: response.contentType, metadata: metadata, within: writeTimeout
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
}
