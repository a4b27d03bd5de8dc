import HTTPTypes
import Hummingbird

/// Sends imgproxy 4's `Content-Security-Policy` and `X-Content-Type-Options: nosniff` on every
/// answer, images, `/info` and errors alike (a response that sets its own policy, the demo page,
/// keeps it). Hummingbird's `ContentSecurityMiddleware` writes the same two headers, but appends
/// a second policy to one a route set (browsers enforce both, which would hide the demo page's
/// images) and skips answers made from thrown errors; its policy type is used here.
///
/// An answer opened as a document, not drawn by an `<img>`, is where a hostile source would
/// act: an SVG with `--sanitize-svg=false`, or one whose reference the sanitizer did not know.
/// The policy lets it load nothing but `data:` images and inline style, and `sandbox` runs no
/// script and gives it an origin of its own; `nosniff` keeps a browser from reading an error's
/// text, which echoes option text, as anything but text.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// imgproxy 4's policy, word for word: `default-src 'none'; style-src 'unsafe-inline';
    /// img-src data:; sandbox`.
    static var policy: String { imageryPolicy }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await answer(request, context: context, next: next)
        if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = Self.policy }
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }
}

/// Written once, outside the generic middleware, which cannot hold a stored static.
private let imageryPolicy = {
    let policy: ContentSecurityPolicy = [.defaultSrc(.none), .styleSrc(.unsafeInline), .imgSrc(.scheme(.init(rawValue: "data:"))), .sandbox()]
    return policy.description
}()
