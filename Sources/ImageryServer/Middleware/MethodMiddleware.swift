import Hummingbird

/// Refuses every method but GET and HEAD with 405 before routing: the server only reads.
struct MethodMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            var response = PlainResponse.text(.methodNotAllowed, "only GET and HEAD", cacheControl: "no-store")
            response.headers[.allow] = "GET, HEAD"
            return response
        }
        return try await next(request, context)
    }
}
