import Crypto
import HTTPTypes
import Hummingbird

/// imgproxy's `IMGPROXY_SECRET`: every request but the health checks must carry
/// `Authorization: Bearer <secret>`, else 403 before any work. The header is compared by
/// digest, and digests compare in constant time, so a guess learns nothing from how long its
/// refusal took, not even the secret's length. The secret is never logged.
struct SecretMiddleware<Context: RequestContext>: RouterMiddleware {
    private let expected: SHA256.Digest
    /// The health-check paths, as requested (the path prefix included): a load balancer's
    /// probe carries no credentials.
    private let exempt: Set<String>

    init(secret: String, exempt: Set<String>) {
        expected = SHA256.hash(data: Array("Bearer \(secret)".utf8))
        self.exempt = exempt
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard exempt.contains(request.uri.path) || isAuthorized(request.headers[.authorization]) else {
            return PlainResponse.text(.forbidden, "forbidden: a wrong or missing Authorization: Bearer secret", cacheControl: "no-store")
        }
        return try await next(request, context)
    }

    func isAuthorized(_ header: String?) -> Bool {
        SHA256.hash(data: Array((header ?? "").utf8)) == expected
    }
}
