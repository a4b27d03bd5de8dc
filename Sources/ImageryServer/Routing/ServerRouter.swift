import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The server's routes and middleware: `/health`, `/metrics`, the demo page at `/`, `/info/…`
/// (imgproxy's info endpoint), and every other path an imgproxy URL (`--health-check-path` adds a second health path). HEAD is answered by each GET route without its body.
enum ServerRouter {
    struct Parts: Sendable {
        let images: ImageEndpoint
        let info: InfoEndpoint
        let metrics: ServerMetrics
        let instance: InstanceName
        let demoPage: String?
        let healthCheckPath: String?
        let logger: Logger
    }

    static func make(_ parts: Parts) -> Router<BasicRequestContext> {
        let router = Router(options: .autoGenerateHeadEndpoints)
        router.addMiddleware {
            InstanceHeaderMiddleware(instance: parts.instance)
            MetricsMiddleware(metrics: parts.metrics)
            RequestLogMiddleware(logger: parts.logger)
            MethodMiddleware()
        }
        for path in ["/health", parts.healthCheckPath].compactMap(\.self) {
            router.get(RouterPath(path)) { _, _ in
                PlainResponse.text(.ok, "ok", cacheControl: "no-store")
            }
        }
        router.get("/metrics") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: parts.metrics.render())))
        }
        let demo = parts.demoPage.map { ByteBuffer(string: $0) }
        router.get("/") { request, _ in
            guard let demo else { return await parts.images.respond(to: request) }
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: demo))
        }
        router.get("/info/**") { request, _ in
            await parts.info.respond(to: request)
        }
        router.get("**") { request, _ in
            await parts.images.respond(to: request)
        }
        return router
    }
}
