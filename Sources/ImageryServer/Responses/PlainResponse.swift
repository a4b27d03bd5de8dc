import HTTPTypes
import Hummingbird
import NIOCore

/// The server's text answers: one line and a newline, with the caching each kind needs.
enum PlainResponse {
    /// `line` as the body; no `Cache-Control` when `cacheControl` is `nil`.
    static func text(_ status: HTTPResponse.Status, _ line: String, cacheControl: String?) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = cacheControl
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: line + "\n")))
    }

    /// An error's status and line; a 503 says when to come back and is never cached.
    static func error(_ error: ServerError, cacheControl: String?) -> Response {
        var response = text(error.status, error.message, cacheControl: error.retryAfter == nil ? cacheControl : "no-store")
        if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}
