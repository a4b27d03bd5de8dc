import Foundation
import Hummingbird
import Imagery
import ImageryImgproxy
import Logging

/// Answers an imgproxy path through the response tiers: checked, planned and rendered only
/// when no tier has it; with a fallback image, a source that cannot be had gets it instead of
/// the error.
struct ImageEndpoint: Sendable {
    let preflight: RequestPreflight
    let renderer: ImageRenderer
    let tiers: ResponseTiers
    /// How `Accept` chooses among the formats this build writes.
    let negotiation: FormatNegotiation
    /// ``ResponseVariantKey/settings`` for every response of this server.
    let settings: String
    /// `IMAGERY_ENABLE_CLIENT_HINTS`: `DPR` and `Width` fill in what URLs leave unsaid.
    let clientHints: Bool
    /// `--set-canonical-header`: images of http(s) sources name them in `Link`.
    var setsCanonicalHeader = false
    /// What stands in for a source that cannot be had, and how it is served.
    var fallback: FallbackImageSettings = FallbackImageSettings()
    /// How failures are logged and answered.
    let errors: ErrorReporting
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
        let (key, cookies) = preflight.cookiePassthrough.variant(of: request, accepted: accepted, clientHints: hints, settings: settings)
        do throws(ServerError) {
            return try await tiers.answer(key, conditions: CachedResponse.Conditions(request.headers)) { () throws(ServerError) in
                let plan = try preflight.plan(for: path, hints: hints, cookies: cookies)
                var checked = ResponseTiers.Checked(expires: plan.expires) { $0.disposition(for: plan) }
                checked.isPrivate = plan.request.source.carriesCookies
                if setsCanonicalHeader { checked.canonical = Self.canonical(plan.request.source) }
                return (plan, checked)
            } work: { plan throws(ServerError) in
                do throws(ServerError) {
                    return try await renderer.render(plan, accepted: accepted)
                } catch {
                    guard error.isSourceFailure, let image = fallback.image else { throw error }
                    var metadata: Logger.Metadata = ["status": "\(error.status.code)", "error": "\(error.message)"]
                    if let detail = error.detail { metadata["detail"] = "\(detail)" }
                    logger.warning("source could not be had: serving the fallback image", metadata: metadata)
                    return try await renderer.renderFallback(plan, accepted: accepted, image: image, settings: fallback, failure: error)
                }
            }
        } catch {
            return errors.response(for: error, isPrivate: cookies != nil)
        }
    }

    /// `Link: <source>; rel="canonical"` for an http(s) source, as imgproxy writes it; `nil`
    /// for any other.
    static func canonical(_ source: ImageSource) -> String? {
        guard case let .url(url, _) = source.kind, ["http", "https"].contains(url.scheme?.lowercased() ?? "") else { return nil }
        return "<\(url.absoluteString)>; rel=\"canonical\""
    }
}
