import HTTPTypes
import Hummingbird

/// CORS for `--allow-origin` (imgproxy's `IMGPROXY_ALLOW_ORIGIN`), through Hummingbird's
/// `CORSMiddleware`, with two rules of imgproxy's it does not have:
///
/// - **Only GET and HEAD.** A preflight asking for any other method is refused with 405 and
///   no CORS headers, so the browser never sends it; the server only reads.
/// - **Every answer allows the origin**, with or without an `Origin` header: a CDN or nginx
///   that stores the answer to a request without one (a crawler's, a prefetch) then hands a
///   browser an answer it accepts. `CORSMiddleware` adds the header only when asked.
struct CORSPolicyMiddleware<Context: RequestContext>: RouterMiddleware {
    private let origin: String
    private let cors: CORSMiddleware<Context>

    init(origin: String) {
        self.origin = origin
        cors = CORSMiddleware(
            allowOrigin: .custom(origin), allowHeaders: [.accept, .authorization, .origin, .ifNoneMatch],
            allowMethods: [.get, .head], maxAge: .seconds(86_400)
        )
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .options, request.headers.contains(.origin) {
            let asked = request.headers[.accessControlRequestMethod].flatMap { HTTPRequest.Method($0) }
            guard asked == .get || asked == .head else {
                var response = PlainResponse.text(.methodNotAllowed, "CORS: only GET and HEAD are allowed", cacheControl: "no-store")
                response.headers[.allow] = "GET, HEAD"
                return response
            }
        }
        var response = try await cors.handle(request, context: context, next: next)
        if response.headers[.accessControlAllowOrigin] == nil { response.headers[.accessControlAllowOrigin] = origin }
        return response
    }
}
