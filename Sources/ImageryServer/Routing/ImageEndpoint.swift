import Hummingbird
import Imagery
import ImageryImgproxy
import Logging

/// Answers an imgproxy path through the response tiers: checked, planned and rendered only
/// when no tier has it.
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
    let errorCacheControl: String
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
        let key = ResponseVariantKey(path: path, accepted: accepted, clientHints: hints?.key ?? "", settings: settings)
        do throws(ServerError) {
            return try await tiers.answer(key, ifNoneMatch: request.headers[.ifNoneMatch]) { () throws(ServerError) in
                let plan = try preflight.plan(for: path, hints: hints)
                return (plan, ResponseTiers.Checked(expires: plan.expires) { $0.disposition(for: plan) })
            } work: { plan throws(ServerError) in
                try await renderer.render(plan, accepted: accepted)
            }
        } catch {
            return errors.response(for: error)
        }
    }
}
