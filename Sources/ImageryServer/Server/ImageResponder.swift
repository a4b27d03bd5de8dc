import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The HTTP face of ``ImageService``: routes by path, and turns its plain responses into
/// Hummingbird's. Thin on purpose: everything it calls is tested without a socket.
struct ImageResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let service: ImageService
    let logger: Logger
    let instance: InstanceName

    func respond(to request: Request, context: Context) async throws -> Response {
        let started = ContinuousClock.now
        service.metrics.requestStarted()
        guard request.method == .get || request.method == .head else {
            service.metrics.requestFinished(status: .methodNotAllowed, after: ContinuousClock.now - started)
            return response(.text(.methodNotAllowed, "only GET and HEAD", cacheControl: "no-store"), head: false)
        }
        // The request target as sent: a plain source's percent-encoding must survive to the parser.
        let target = request.head.path ?? "/"
        let path = String(target.prefix { $0 != "?" })
        let answer: ServerResponse
        switch path {
        case "/health":
            answer = .text(.ok, "ok", cacheControl: "no-store")
        case "/" where service.demoPage != nil:
            var fields = HTTPFields()
            fields[.contentType] = "text/html; charset=utf-8"
            fields[.cacheControl] = "no-cache"
            answer = ServerResponse(status: .ok, headers: fields, body: Array((service.demoPage ?? "").utf8))
        case "/metrics":
            var fields = HTTPFields()
            fields[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            fields[.cacheControl] = "no-store"
            answer = ServerResponse(status: .ok, headers: fields, body: service.metrics.render())
        default:
            answer = await service.image(
                path: path, accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch]
            )
        }
        let elapsed = ContinuousClock.now - started
        service.metrics.requestFinished(status: answer.status, after: elapsed)
        logger.info("request", metadata: [
            "status": "\(answer.status.code)",
            "ms": "\(elapsed.milliseconds)",
            "bytes": "\(answer.body.count)",
        ])
        return response(answer, head: request.method == .head)
    }

    func response(_ answer: ServerResponse, head: Bool) -> Response {
        var headers = answer.headers
        headers[.imageryInstance] = instance.value
        if answer.status != .notModified { headers[.contentLength] = String(answer.body.count) }
        let body = head || answer.body.isEmpty ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        return Response(status: answer.status, headers: headers, body: body)
    }
}

extension Duration {
    /// Whole milliseconds, for logs.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}

extension HTTPField.Name {
    /// Which instance answered: a load balancer's operators, and the scale-out tests, read it.
    static let imageryInstance = HTTPField.Name("X-Imagery-Instance")!
}
