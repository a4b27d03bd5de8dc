import HTTPTypes
import Hummingbird
import Logging

/// Gives every request its ``RequestID``: the request's work runs with it as
/// ``RequestID/current``, Hummingbird's own logger says it as `hb.request.id`, and every
/// answer, an error's too, carries it in `X-Request-ID`. The outermost middleware, so that
/// everything inside it, the request's span first, sees the id.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let id: String
        if let given = RequestID.accepted(request.headers[RequestID.field]) {
            id = given
            context.logger[metadataKey: "hb.request.id"] = .string(id)
        } else if let made = context.logger[metadataKey: "hb.request.id"] {
            id = made.description
        } else {
            // A context made outside Hummingbird's server (a test driving the router) has none.
            id = RequestID.next()
            context.logger[metadataKey: "hb.request.id"] = .string(id)
        }
        var response: Response
        do {
            response = try await RequestID.withValue(id) { try await next(request, context) }
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            // What Hummingbird would answer for it, with the id.
            context.logger.error("request failed", metadata: ["error.type": "\(type(of: error))"])
            response = Response(status: .internalServerError)
        }
        response.headers[RequestID.field] = id
        return response
    }
}

extension RequestID {
    static let field = HTTPField.Name(header)!
}
