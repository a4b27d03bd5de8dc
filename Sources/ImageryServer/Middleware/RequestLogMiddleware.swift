import Hummingbird
import Logging

/// One line per request, at `debug`: a busy server's requests belong in its metrics and its
/// proxy's access log, not in its own output (`--log-level debug` shows them).
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard logger.logLevel <= .debug else { return try await next(request, context) }
        let started = ContinuousClock.now
        let response = try await next(request, context)
        logger.debug("request", metadata: [
            "method": "\(request.method)",
            "path": "\(request.uri.path.prefix(200))",
            "status": "\(response.status.code)",
            "ms": "\((ContinuousClock.now - started).milliseconds)",
            "bytes": "\(response.body.contentLength ?? 0)",
        ])
        return response
    }
}

extension Duration {
    /// Whole milliseconds, for logs.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
