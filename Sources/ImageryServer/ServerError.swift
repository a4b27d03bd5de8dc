import Foundation
import HTTPTypes
import Imagery
import ImageryImgproxy

/// Why a request got no image: the HTTP status it answers with and one short line for the
/// body. The line names what was wrong (an option, the signature, the source's status) and
/// never a local path, a key or a source URL's query.
struct ServerError: Error, Equatable {
    var status: HTTPResponse.Status
    var message: String
    /// Seconds a client should wait before retrying (503 and 429 only).
    var retryAfter: Int?
    /// For the log, never the body: what failed, as the loader names it (`HTTP 403 from
    /// s3://photos/a.jpg`), sources without their query and never a credential.
    var detail: String?
    /// Whether the source could not be had (the origin failed, answered an error, timed out,
    /// or sent too much), where a fallback image may stand in; not a refused URL or source.
    var isSourceFailure = false
    /// The host (or bucket, or `local`) of a source that failed to download, for the log:
    /// `--report-downloading-errors` says at which level.
    var failedSource: String?

    static func badRequest(_ message: String) -> ServerError { ServerError(status: .badRequest, message: message) }
    static func forbidden(_ message: String) -> ServerError { ServerError(status: .forbidden, message: message) }
    static func notFound(_ message: String) -> ServerError { ServerError(status: .notFound, message: message) }
    static func overloaded(retryAfter: Int) -> ServerError {
        ServerError(status: .serviceUnavailable, message: "server busy, retry later", retryAfter: retryAfter)
    }
    /// imgproxy's full queue (`IMGPROXY_REQUESTS_QUEUE_SIZE`).
    static func tooManyRequests(retryAfter: Int) -> ServerError {
        ServerError(status: .tooManyRequests, message: "too many requests, retry later", retryAfter: retryAfter)
    }
}

extension ServerError {
    /// A refused URL: 403 for a signature, 400 for anything else it says.
    init(_ error: ImgproxyError) {
        self.init(status: error.kind == .invalidSignature ? .forbidden : .badRequest, message: error.message)
    }

    /// The status and line for a pipeline failure, by stage and cause, so a handler never
    /// invents one.
    init(_ error: ImagePipelineError) {
        switch error {
        case let .loadingFailed(loading):
            self.init(loading)
        case let .decodingFailed(_, image):
            switch image {
            case .unrecognizedFormat, .unsupportedFormat, .emptyData:
                self.init(status: .unsupportedMediaType, message: "source: not an image format this server reads")
            case let .tooLarge(width, height, limit):
                self.init(status: .unprocessableContent, message: "source: \(width)x\(height) is over the \(limit)-pixel limit")
            case .truncated, .corrupt:
                self.init(status: .unprocessableContent, message: "source: the image is damaged")
            case .encodingFailed, .invalidRequest, .processorFailed:
                self.init(status: .internalServerError, message: "decoding failed")
            }
        case let .processingFailed(_, image):
            if case let .invalidRequest(detail) = image {
                self.init(status: .badRequest, message: "options: \(detail)")
            } else {
                self.init(status: .internalServerError, message: "processing failed")
            }
        case .cancelled:
            self.init(status: .init(code: 499, reasonPhrase: "Client Closed Request"), message: "cancelled")
            return
        }
        if detail == nil { detail = String(describing: error) }
    }

    init(_ error: DataLoadingError) {
        switch error {
        case .notFound, .fileUnreadable:
            self.init(status: .notFound, message: "source: not found")
        case let .httpStatus(status, _):
            self.init(status: .badGateway, message: "source: the origin answered \(status)")
        case let .tooLarge(_, limit):
            self.init(status: .contentTooLarge, message: "source: larger than \(limit) bytes")
        case .timedOut:
            self.init(status: .gatewayTimeout, message: "source: the origin timed out")
        case .connectionFailed:
            self.init(status: .badGateway, message: "source: could not connect to the origin")
        case .unsupportedSource:
            self.init(status: .badRequest, message: "source: unsupported scheme")
        case let .redirectRefused(_, detail):
            self.init(status: .forbidden, message: "source: \(detail)")
        case .customSourceFailed, .authorizationFailed:
            self.init(status: .badGateway, message: "source: could not be loaded")
        case let .decryptionFailed(_, detail):
            // The object is there but cannot be opened: the detail names a format or a header,
            // never a key, and tells the operator which objects to re-encrypt.
            self.init(status: .unprocessableContent, message: "source: the object cannot be decrypted: \(detail)")
        case .cancelled:
            self.init(status: .init(code: 499, reasonPhrase: "Client Closed Request"), message: "cancelled")
        }
        detail = String(describing: error)
        switch error {
        case .notFound, .fileUnreadable, .httpStatus, .tooLarge, .timedOut, .connectionFailed, .customSourceFailed, .authorizationFailed,
             .decryptionFailed:
            isSourceFailure = true
        case .unsupportedSource, .redirectRefused, .cancelled:
            isSourceFailure = false
        }
        failedSource = Self.host(of: error)
    }

    /// Where a download failed, without path or query; `nil` when nothing was downloaded.
    static func host(of error: DataLoadingError) -> String? {
        let source: String
        switch error {
        case let .notFound(described), let .httpStatus(_, described), let .tooLarge(described, _), let .timedOut(described),
             let .connectionFailed(described, _), let .redirectRefused(described, _), let .customSourceFailed(described, _),
             let .authorizationFailed(described, _), let .decryptionFailed(described, _):
            source = described
        case .fileUnreadable:
            return "local"
        case .unsupportedSource, .cancelled:
            return nil
        }
        return URL(string: source)?.host ?? source
    }
}
