import Crypto
import Foundation
import HTTPTypes
import Imagery
import ImageryCodecs
import Logging
import Synchronization

/// Maps one request onto the pipeline and back: parse, check, load through the pipeline
/// (which coalesces, caches and limits), encode, answer. Parsing and checking come before
/// any work, so a bad signature or option costs nothing.
final class ImageService: Sendable {
    let configuration: ServerConfiguration
    let pipeline: ImagePipeline
    let metrics: ServerMetrics
    private let signature: URLSignature?
    private let responses: ResponseCache
    private let inFlight = Atomic<Int>(0)
    private let logger: Logger
    /// The HTML of `/` with `--demo`, made once: the gallery does not change while serving.
    let demoPage: String?

    init(configuration: ServerConfiguration, pipeline: ImagePipeline, metrics: ServerMetrics, logger: Logger) throws(ServerSetupError) {
        self.configuration = configuration
        self.pipeline = pipeline
        self.metrics = metrics
        self.logger = logger
        self.responses = ResponseCache(budget: configuration.responseCacheBytes)
        if let keyHex = configuration.keyHex {
            guard let signature = URLSignature(keyHex: keyHex, saltHex: configuration.saltHex ?? "") else {
                throw .invalidKey
            }
            self.signature = signature
        } else {
            self.signature = nil
        }
        if let root = configuration.demoRoot {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root))?.filter { $0.hasSuffix(".jpg") }.sorted() ?? []
            self.demoPage = DemoPage(imageNames: names, signature: signature).html
        } else {
            self.demoPage = nil
        }
    }

    /// Image requests running or waiting now.
    var requestsInFlight: Int { inFlight.load(ordering: .relaxed) }

    /// Answers an image request for `path` (the request target without its query).
    func image(path: String, accept: String?, ifNoneMatch: String?) async -> ServerResponse {
        do throws(ServerError) {
            // A hit is looked up by the path as sent, before parsing: the same path always
            // parses, checks and plans the same (one key and salt per process), so only a path
            // that passed every check once can be in the cache. Parsing was most of a hit's cost.
            // Whether WebP may be negotiated is the one thing `Accept` changes.
            let acceptsWebP = accept.map { OutputFormat.accepts($0, "image/webp") } == true
                && ImageEncoder.supportedFormats.contains(.webp)
            let cacheKey = path + (acceptsWebP ? "|webp" : "|-")
            if let cached = responses[cacheKey] {
                return answer(cached, ifNoneMatch: ifNoneMatch)
            }
            let plan = try Self.preflight(path, configuration: configuration, signature: signature)
            let entry = try await render(plan, accept: accept)
            responses.store(entry, for: cacheKey)
            return answer(entry, ifNoneMatch: ifNoneMatch)
        } catch {
            if error.status.code >= 500 { logger.warning("request failed", metadata: ["status": "\(error.status.code)", "error": "\(error.message)"]) }
            return .error(error, cacheControl: configuration.errorCacheControl)
        }
    }

    /// Loads through the pipeline and encodes, counted against the queue limit.
    private func render(_ plan: RequestPlan, accept: String?) async throws(ServerError) -> ResponseCache.Entry {
        let admitted = inFlight.add(1, ordering: .relaxed).newValue
        metrics.setQueued(min(admitted, configuration.maximumQueue))
        defer { metrics.setQueued(inFlight.subtract(1, ordering: .relaxed).newValue) }
        guard admitted <= configuration.maximumQueue else { throw .overloaded(retryAfter: 1) }

        let image: Bitmap
        do {
            image = try await pipeline.image(for: plan.request).image
        } catch {
            throw ServerError(error)
        }
        let format = plan.format ?? OutputFormat.negotiated(accept: accept, hasTransparency: image.hasTransparency)
        let bytes: [UInt8]
        do {
            bytes = try ImageEncoder(format: format.format, quality: plan.quality, background: plan.background).encode(image)
        } catch {
            logger.error("encoding failed", metadata: ["format": "\(format.format)", "error": "\(error)"])
            throw ServerError(status: .internalServerError, message: "encoding failed")
        }
        let digest = SHA256.hash(data: bytes)
        return ResponseCache.Entry(
            bytes: bytes, contentType: format.format.mimeType,
            etag: "\"" + Base64URL.encode(Array(digest).prefix(16)) + "\"",
            varyAccept: plan.format == nil
        )
    }

    private func answer(_ entry: ResponseCache.Entry, ifNoneMatch: String?) -> ServerResponse {
        var headers = HTTPFields()
        headers[.cacheControl] = configuration.cacheControl
        headers[.eTag] = entry.etag
        if entry.varyAccept { headers[.vary] = "Accept" }
        if let ifNoneMatch, Self.matches(ifNoneMatch, entry.etag) {
            return ServerResponse(status: .notModified, headers: headers, body: [])
        }
        headers[.contentType] = entry.contentType
        return ServerResponse(status: .ok, headers: headers, body: entry.bytes)
    }

    /// `If-None-Match`: a list of tags, weak or strong, or `*`.
    static func matches(_ ifNoneMatch: String, _ etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }
}

/// Why the server could not start: said before it listens, with the flag to fix.
package enum ServerSetupError: Error, CustomStringConvertible {
    case invalidKey
    case cacheDirectory(String)

    package var description: String {
        switch self {
        case .invalidKey: "--key and --salt must be hex, and the key must not be empty"
        case let .cacheDirectory(detail): "--cache-dir: \(detail)"
        }
    }
}
