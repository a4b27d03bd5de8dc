import Hummingbird

/// Counts every request by status, and its latency, in the server's Prometheus series.
///
/// Hummingbird's own `MetricsMiddleware` records through swift-metrics too, but under its names
/// and labels (`hb.requests`, `http.server.request.duration`, `http.server.active_requests`, by
/// route, method and status), and the catch-all route would label every image alike. The series here are the documented
/// `imagery_http_requests_total` and `imagery_http_request_duration_seconds` with the status,
/// which operators' dashboards and the scale-out tests read, with the in-flight gauge beside them.
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        metrics.requestStarted()
        do {
            let response = try await next(request, context)
            metrics.requestFinished(status: response.status, after: ContinuousClock.now - started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            metrics.requestFinished(status: status, after: ContinuousClock.now - started)
            throw error
        }
    }
}
