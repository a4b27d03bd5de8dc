import HTTPTypes
import Hummingbird
import Tracing

/// The request's span, with OpenTelemetry's HTTP conventions: continued from the caller's
/// `traceparent` (through the global instrument), named by its route, and ended once the answer
/// is made (its body is a buffer by then). The pipeline's and the tiers' spans are its children,
/// and the tier that answered is its `imagery.cache.tier` (``TierNote``).
///
/// Not Hummingbird's `TracingMiddleware`, which records `url.path` and `url.query` as sent: an
/// imgproxy path carries its source, plain or base64, and a source can carry user info or a
/// presigned query. This records the route (`/**`, `/info/**`) and never the path; the source's
/// host is on the fetch span.
///
/// A failed request (status 400 or more) has an error status, with `error.type` its status
/// code: an image proxy's 4xx mostly says a source failed, which an operator looks for.
struct RequestSpanMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var parent = ServiceContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: FieldsExtractor())
        let span = InstrumentationSystem.tracer.startSpan("HTTP \(request.method.rawValue)", context: parent, ofKind: .server)
        var traced = span.context
        let note = span.isRecording ? TierNote() : nil
        traced[TierNote.self] = note
        do {
            let response = try await ServiceContext.withValue(traced) { try await next(request, context) }
            finish(span, request, status: Int(response.status.code), route: context.endpointPath, bytes: response.body.contentLength, tier: note?.value)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            // Its kind, not its text: an error's text may name the source.
            finish(span, request, status: Int(status), route: context.endpointPath, bytes: nil, tier: note?.value, error: "\(type(of: error))")
            throw error
        }
    }

    /// Names the span by its route and sets every attribute in one update, then ends it: a
    /// recording span takes a lock for each change, and a cached answer is little else.
    private func finish(_ span: any Span, _ request: Request, status: Int, route: String?, bytes: Int?, tier: String?, error: String? = nil) {
        defer { span.end() }
        guard span.isRecording else { return }
        if let route { span.operationName = "\(request.method.rawValue) \(route)" }
        span.updateAttributes { attributes in
            attributes["http.request.method"] = request.method.rawValue
            attributes["user_agent.original"] = request.headers[.userAgent]
            attributes["imagery.request_id"] = RequestID.current
            attributes["http.route"] = route
            attributes["http.response.status_code"] = status
            attributes["http.response.body.size"] = bytes
            attributes["imagery.cache.tier"] = tier
            attributes["exception.type"] = error
            if status >= 400 { attributes["error.type"] = String(status) }
        }
        if status >= 400 { span.setStatus(SpanStatus(code: .error, message: "HTTP \(status)")) }
    }
}

private struct FieldsExtractor: Extractor {
    func extract(key: String, from fields: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { fields[$0] }
    }
}
