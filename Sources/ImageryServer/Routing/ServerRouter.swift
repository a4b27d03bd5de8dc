import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The server's routes and middleware: `/health`, `/metrics`, the demo page at `/`, `/info/…`
/// (imgproxy's info endpoint), and every other path an imgproxy URL (`--health-check-path` adds
/// a second health path). With `--path-prefix` every route sits in a group under it, the
/// health checks included, as imgproxy's do. HEAD is answered by each GET route without its body.
///
/// Middleware, outermost first: the request id, the request's span (when traced), the instance
/// header, the security headers (imgproxy's policy and nosniff), metrics and the request log see
/// every answer; CORS answers preflights before the method
/// check refuses OPTIONS; the secret is checked after both, since a browser's preflight never
/// carries credentials.
enum ServerRouter {
    struct Parts: Sendable {
        let images: ImageEndpoint
        let info: InfoEndpoint
        let metrics: ServerMetrics
        let instance: InstanceName
        let demoPage: String?
        let healthCheckPath: String?
        let logger: Logger
        var pathPrefix: String?
        var secret: String?
        var allowOrigin: String?
        /// `--request-timeout`, over image, `/info` and demo-page requests.
        var deadline: RequestDeadline?
        /// Whether `/metrics` is served here; `false` when `--prometheus-bind` serves it apart.
        var servesMetrics = true
        /// `--open-telemetry-enable`: each request is a span. Without it no span middleware
        /// runs: even a no-op span costs the hot path a little.
        var tracesRequests = false
    }

    /// The listener of `--prometheus-bind`: `/metrics` alone, with no path prefix or secret,
    /// as imgproxy's Prometheus server answers.
    static func metricsOnly(_ metrics: ServerMetrics) -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        addMetrics(to: router, metrics)
        return router
    }

    private static func addMetrics(to routes: some RouterMethods<BasicRequestContext>, _ metrics: ServerMetrics) {
        routes.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics.render())))
        }
    }

    static func make(_ parts: Parts) -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        let prefix = parts.pathPrefix ?? ""
        let healthPaths = ["/health", parts.healthCheckPath].compactMap(\.self)
        router.addMiddleware {
            RequestIDMiddleware()
            if parts.tracesRequests {
                RequestSpanMiddleware()
            }
            InstanceHeaderMiddleware(instance: parts.instance)
            SecurityHeadersMiddleware()
            MetricsMiddleware(metrics: parts.metrics)
            RequestLogMiddleware(logger: parts.logger)
            if let origin = parts.allowOrigin {
                CORSPolicyMiddleware(origin: origin)
            }
            MethodMiddleware()
            if let secret = parts.secret {
                SecretMiddleware(secret: secret, exempt: Set(healthPaths.map { prefix + $0 }))
            }
        }
        if prefix.isEmpty {
            addRoutes(to: router, parts, healthPaths: healthPaths)
        } else {
            addRoutes(to: router.group(RouterPath(prefix)), parts, healthPaths: healthPaths)
        }
        return router
    }

    private static func addRoutes(to routes: some RouterMethods<BasicRequestContext>, _ parts: Parts, healthPaths: [String]) {
        for path in healthPaths {
            routes.get(RouterPath(path)) { _, _ in
                PlainResponse.text(.ok, "ok", cacheControl: "no-store")
            }
        }
        if parts.servesMetrics { addMetrics(to: routes, parts.metrics) }
        let demo = parts.demoPage.map { ByteBuffer(string: $0) }
        let prefix = parts.pathPrefix
        // The endpoints read imgproxy's path: what follows the prefix, which no signature covers.
        let answer = { @Sendable (request: Request, respond: @escaping @Sendable (Request) async -> Response) async -> Response in
            let request = unprefixed(request, prefix)
            guard let deadline = parts.deadline else { return await respond(request) }
            return await deadline.run { await respond(request) }
        }
        routes.get("/") { request, _ in
            guard let demo else { return await answer(request) { await parts.images.respond(to: $0) } }
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            // Its own policy: it shows this server's images and its inline style, and runs nothing.
            headers[.contentSecurityPolicy] = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: demo))
        }
        routes.get("/info/**") { request, _ in
            await answer(request) { await parts.info.respond(to: $0) }
        }
        routes.get("**") { request, _ in
            await answer(request) { await parts.images.respond(to: $0) }
        }
    }

    /// `request` with `prefix` taken off its path (`/img/sig/…` → `/sig/…`).
    static func unprefixed(_ request: Request, _ prefix: String?) -> Request {
        guard let prefix, let path = request.head.path, path.hasPrefix(prefix) else { return request }
        var head = request.head
        let rest = path.dropFirst(prefix.count)
        head.path = rest.hasPrefix("/") ? String(rest) : "/" + rest
        return Request(head: head, body: request.body)
    }
}
