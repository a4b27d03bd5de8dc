import Hummingbird
import Imagery
import ImageryImgproxy
import Logging

/// Answers an imgproxy path: from the response cache, else from the shared tiers (the disk
/// tier, result storage), else by checking the path and rendering it within the admission limit.
///
/// A hit is looked up by the path as sent, before parsing: the same path always parses,
/// checks and plans the same (one configuration per process, whose output-changing settings
/// are in the key), so only a path that passed every check once is stored.
struct ImageEndpoint: Sendable {
    let preflight: RequestPreflight
    let renderer: ImageRenderer
    let admission: Admission
    let responses: ResponseCache
    /// The disk tier and result storage, in the order they are asked.
    let shared: [any ResponseStoring]
    let metrics: ServerMetrics
    /// How `Accept` chooses among the formats this build writes.
    let negotiation: FormatNegotiation
    /// ``ResponseVariantKey/settings`` for every response of this server.
    let settings: String
    /// `IMAGERY_ENABLE_CLIENT_HINTS`: `DPR` and `Width` fill in what URLs leave unsaid.
    let clientHints: Bool
    let errorCacheControl: String
    /// Seconds since 1970, for URLs that expire.
    let now: @Sendable () -> Int
    let logger: Logger

    func respond(to request: Request) async -> Response {
        var response = await answer(request)
        if clientHints, response.status.code < 400 {
            // Every answer may depend on the hints, so every one says so.
            let vary = response.headers[.vary].map { [$0] } ?? []
            response.headers[.vary] = (vary + ClientHints.headerNames).joined(separator: ", ")
            response.headers[.acceptCH] = ClientHints.headerNames.joined(separator: ", ")
        }
        return response
    }

    private func answer(_ request: Request) async -> Response {
        // The target as sent: a plain source's percent-encoding must survive to the parser.
        let path = request.uri.path
        let accepted = negotiation.accepted(request.headers[.accept])
        let hints = clientHints ? ClientHints(request.headers) : nil
        let key = ResponseVariantKey(path: path, accepted: accepted, clientHints: hints?.key ?? "", settings: settings)
        let ifNoneMatch = request.headers[.ifNoneMatch]
        do throws(ServerError) {
            if let hit = responses[key] {
                metrics.responseHit(.memory)
                return try hit.response(ifNoneMatch: ifNoneMatch, expires: hit.expires, now: now())
            }
            let plan = try preflight.plan(for: path, hints: hints)
            // Before any work: an expired URL is 404 whatever is stored for it.
            if let expires = plan.expires, expires <= now() { throw ServerError(status: .notFound, message: "the URL has expired") }
            for (index, tier) in shared.enumerated() {
                guard var stored = await tier.response(for: key) else { continue }
                metrics.responseHit(tier.tier)
                stored.expires = plan.expires
                stored.disposition = stored.disposition(for: plan)
                responses.store(stored, for: key)
                for nearer in shared[..<index] { nearer.store(stored, for: key) }   // a bucket hit fills the disk tier
                return try stored.response(ifNoneMatch: ifNoneMatch, expires: plan.expires, now: now())
            }
            metrics.responseMiss()
            var rendered = try await admission.run { () throws(ServerError) in try await renderer.render(plan, accepted: accepted) }
            rendered.expires = plan.expires
            rendered.disposition = rendered.disposition(for: plan)
            responses.store(rendered, for: key)
            for tier in shared { tier.store(rendered, for: key) }
            return try rendered.response(ifNoneMatch: ifNoneMatch, expires: plan.expires, now: now())
        } catch {
            if error.status.code >= 500 {
                var metadata: Logger.Metadata = ["status": "\(error.status.code)", "error": "\(error.message)"]
                if let detail = error.detail { metadata["detail"] = "\(detail)" }
                logger.warning("request failed", metadata: metadata)
            }
            return PlainResponse.error(error, cacheControl: errorCacheControl)
        }
    }
}
