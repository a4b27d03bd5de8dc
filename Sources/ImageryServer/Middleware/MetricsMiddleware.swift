import Hummingbird

/// Counts every request by status, and its latency, in the server's Prometheus series.
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
