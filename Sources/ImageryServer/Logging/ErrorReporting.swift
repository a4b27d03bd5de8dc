import Hummingbird
import Logging

/// How a failed request is logged and answered, the same for images and `/info`:
///
/// - A source that failed to download (not found, refused, an origin's error or silence) is
///   logged with its host, at `warning` with `--report-downloading-errors` (on, as in
///   imgproxy), at `debug` without: a deployment whose URLs often name dead images keeps its
///   warnings for its own faults.
/// - Any other failure of the server's (5xx) is logged at `warning`.
/// - The body is the error's one line; with `--development-errors-mode` it also carries the
///   detail the log has (which origin answered what, which codec failed and why).
struct ErrorReporting: Sendable {
    let logger: Logger
    let reportsDownloads: Bool
    let development: Bool
    /// `Cache-Control` of error answers (`--error-cache-control`); `nil` for none.
    let cacheControl: String?

    init(configuration: ServerConfiguration, logger: Logger) {
        self.logger = logger
        reportsDownloads = configuration.reportDownloadingErrors
        development = configuration.developmentErrorsMode
        cacheControl = configuration.errorCacheControl
    }

    /// Logs `error` as its kind asks and makes its answer; `what` names the failed request in
    /// the log (`request failed`, `info failed`). An error made with a client's cookies
    /// (`isPrivate`) may say something of that client's access to the source, so no cache
    /// keeps it, whatever `--error-cache-control` says: the shipped edge ignores `Vary`.
    func response(for error: ServerError, what: String = "request failed", isPrivate: Bool = false) -> Response {
        log(error, what: what)
        var shown = error
        if development, let detail = error.detail { shown.message += "\ndetail: " + detail }
        return PlainResponse.error(shown, cacheControl: isPrivate ? "private, no-store" : cacheControl)
    }

    func log(_ error: ServerError, what: String) {
        var metadata: Logger.Metadata = ["status": "\(error.status.code)", "error": "\(error.message)"]
        if let detail = error.detail { metadata["detail"] = "\(detail)" }
        if let host = error.failedSource {
            metadata["host"] = "\(host)"
            logger.log(level: reportsDownloads ? .warning : .debug, "source download failed", metadata: metadata)
        } else if error.status.code >= 500 {
            logger.warning("\(what)", metadata: metadata)
        }
    }
}
