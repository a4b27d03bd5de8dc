import Hummingbird
import Imagery
import ImageryImgproxy
import Logging

/// Answers an imgproxy path: from the response cache, else from the disk tier, else by
/// checking the path and rendering it within the admission limit.
///
/// A hit is looked up by the path as sent, before parsing: the same path always parses,
/// checks and plans the same (one configuration per process, whose output-changing settings
/// are in the key), so only a path that passed every check once is stored.
struct ImageEndpoint: Sendable {
    let preflight: RequestPreflight
    let renderer: ImageRenderer
    let admission: Admission
    let responses: ResponseCache
    let disk: ResponseDiskTier?
    let metrics: ServerMetrics
    /// How `Accept` chooses among the formats this build writes.
    let negotiation: FormatNegotiation
    /// ``ResponseVariantKey/settings`` for every response of this server.
    let settings: String
    let errorCacheControl: String
    let logger: Logger

    func respond(to request: Request) async -> Response {
        // The target as sent: a plain source's percent-encoding must survive to the parser.
        let path = request.uri.path
        let accepted = negotiation.accepted(request.headers[.accept])
        let key = ResponseVariantKey(path: path, accepted: accepted, settings: settings)
        let ifNoneMatch = request.headers[.ifNoneMatch]
        if let hit = responses[key] {
            metrics.responseHit(.memory)
            return hit.response(ifNoneMatch: ifNoneMatch)
        }
        do throws(ServerError) {
            let plan = try preflight.plan(for: path)
            if let disk, let stored = await disk.response(for: key) {
                metrics.responseHit(.disk)
                responses.store(stored, for: key)
                return stored.response(ifNoneMatch: ifNoneMatch)
            }
            metrics.responseMiss()
            let rendered = try await admission.run { () throws(ServerError) in try await renderer.render(plan, accepted: accepted) }
            responses.store(rendered, for: key)
            if let disk {
                disk.store(rendered, for: key)
                metrics.responseWrittenToDisk()
            }
            return rendered.response(ifNoneMatch: ifNoneMatch)
        } catch {
            if error.status.code >= 500 {
                logger.warning("request failed", metadata: ["status": "\(error.status.code)", "error": "\(error.message)"])
            }
            return PlainResponse.error(error, cacheControl: errorCacheControl)
        }
    }
}
