import HTTPTypes
import Hummingbird

/// Names the instance that answered in `X-Imagery-Instance`, on every response (errors,
/// `/health` and `/metrics` included): a load balancer's operators, and the scale-out tests,
/// read it.
struct InstanceHeaderMiddleware<Context: RequestContext>: RouterMiddleware {
    let instance: InstanceName

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await answer(request, context: context, next: next)
        response.headers[.imageryInstance] = instance.value
        return response
    }
}

extension HTTPField.Name {
    /// Which instance answered.
    static let imageryInstance = HTTPField.Name("X-Imagery-Instance")!
}
