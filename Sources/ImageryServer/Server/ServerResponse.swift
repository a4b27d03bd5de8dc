import HTTPTypes

/// A response as plain values (status, headers, body), so the whole request path is tested
/// without a socket; ``ImageResponder`` turns it into Hummingbird's.
struct ServerResponse: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: [UInt8]

    static func text(_ status: HTTPResponse.Status, _ line: String, cacheControl: String) -> ServerResponse {
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = cacheControl
        return ServerResponse(status: status, headers: headers, body: Array((line + "\n").utf8))
    }

    static func error(_ error: ServerError, cacheControl: String) -> ServerResponse {
        var response = text(error.status, error.message, cacheControl: error.retryAfter == nil ? cacheControl : "no-store")
        if let retryAfter = error.retryAfter { response.headers[.retryAfter] = String(retryAfter) }
        return response
    }
}
