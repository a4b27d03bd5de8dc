import Foundation
import Hummingbird
import Imagery
import Logging

/// One line per request, at `debug`: a busy server's requests belong in its metrics and its
/// proxy's access log, not in its own output (`--log-level debug` shows them). The path is
/// logged without its source's query or user info (``redacted(_:)``).
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard logger.logLevel <= .debug else { return try await next(request, context) }
        let started = ContinuousClock.now
        let response = try await next(request, context)
        logger.debug("request", metadata: [
            "method": "\(request.method)",
            "path": "\(Self.redacted(request.uri.path).prefix(200))",
            "status": "\(response.status.code)",
            "ms": "\((ContinuousClock.now - started).milliseconds)",
            "bytes": "\(response.body.contentLength ?? 0)",
        ])
        return response
    }
}

extension RequestLogMiddleware {
    /// `path` with its source told as ``ImageSource/description`` tells it (no query, no user
    /// info: a presigned query or a password would otherwise be logged) for a plain source, and
    /// as `…` for an encoded one, whose text decodes to the same; the signature and options are
    /// kept.
    static func redacted(_ path: String) -> String {
        if let plain = path.range(of: "/plain/") {
            let source = String(path[plain.upperBound...])
            let decoded = source.removingPercentEncoding ?? source
            let shown = URL(string: decoded).map { ImageSource.url($0).description } ?? "…"
            return path[..<plain.upperBound] + shown
        }
        var kept: [Substring] = []
        let signatureIndex = path.hasPrefix("/info/") ? 2 : 1
        for (index, segment) in path.split(separator: "/", omittingEmptySubsequences: false).enumerated() {
            // The empty root, `info`, the signature (or `unsafe`), and `name:args` options.
            guard index <= signatureIndex || segment.contains(":") else {
                kept.append("…")
                break
            }
            kept.append(segment)
        }
        return kept.joined(separator: "/")
    }
}

extension Duration {
    /// Whole milliseconds, for logs.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
