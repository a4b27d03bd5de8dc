import Hummingbird

extension RouterMiddleware where Context: RequestContext {
    /// What `next` answers `request`, an error that knows its answer (a route not found, a
    /// method refused) included: middleware that adds a header to every answer adds it to those
    /// too, which Hummingbird would otherwise make after every middleware has run.
    func answer(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            return try error.response(from: request, context: context)
        }
    }
}
