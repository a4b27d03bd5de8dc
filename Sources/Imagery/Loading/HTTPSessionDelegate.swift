import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Receives every task's response, bytes and completion for ``HTTPDataLoader``'s session and
/// resumes the waiting caller exactly once.
final class HTTPSessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    struct Transfer {
        let source: String
        let limit: Int
        let maximumRedirects: Int
        /// Where the head and the bytes of an accepted response go.
        let sink: DataResponse.Sink
        /// Every URL of the redirect chain so far, the first included, to catch a loop.
        var chain: [URL]
        var received = 0
        /// Set when the delegate itself stops the task (bad status, too large), so the
        /// resulting `URLError.cancelled` is reported as what really happened.
        var failure: DataLoadingError?
        var continuation: CheckedContinuation<DataLoadingError?, Never>?

        init(source: String, url: URL, limit: Int, maximumRedirects: Int, sink: DataResponse.Sink) {
            self.source = source
            self.chain = [url]
            self.limit = limit
            self.maximumRedirects = maximumRedirects
            self.sink = sink
        }
    }

    private let transfers = Locked<[Int: Transfer]>([:])

    func start(
        _ task: URLSessionDataTask,
        transfer: Transfer,
        continuation: CheckedContinuation<DataLoadingError?, Never>
    ) {
        var transfer = transfer
        transfer.continuation = continuation
        transfers.withLock { $0[task.taskIdentifier] = transfer }
        task.resume()
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 200
        let expected = response.expectedContentLength >= 0 ? response.expectedContentLength : nil
        let (failure, sink) = transfers.withLock { transfers -> (DataLoadingError?, DataResponse.Sink?) in
            guard var transfer = transfers[dataTask.taskIdentifier] else { return (nil, nil) }
            if let earlier = transfer.failure { return (earlier, nil) }
            if status == 404 || status == 410 {
                transfer.failure = .notFound(source: transfer.source)
            } else if !(200...299).contains(status) {
                transfer.failure = .httpStatus(status, source: transfer.source)
            } else if let expected, expected > Int64(transfer.limit) {
                transfer.failure = .tooLarge(source: transfer.source, limit: transfer.limit)
            }
            transfers[dataTask.taskIdentifier] = transfer
            return (transfer.failure, transfer.sink)
        }
        if failure == nil, let sink {
            let fields = ((response as? HTTPURLResponse)?.allHeaderFields ?? [:]).compactMap { name, value in
                (name as? String).map { (name: $0, value: "\(value)") }
            }
            sink.begin(expectedLength: expected, headers: SourceHeaders(fields: fields))
        }
        completionHandler(failure == nil ? .allow : .cancel)
    }

    /// Follows a redirect only to http(s), at most `maximumRedirects` times, and never back to a
    /// URL of the chain: the loader's own count, so a loop costs one short chain, not a
    /// transport's long default, and is reported as what it is.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let refusal: DataLoadingError? = transfers.withLock { transfers in
            guard var transfer = transfers[task.taskIdentifier] else { return nil }
            let target = request.url
            let detail = RedirectRule.refusal(to: target, after: transfer.chain, maximum: transfer.maximumRedirects)
            if let detail {
                transfer.failure = .redirectRefused(source: transfer.source, detail: detail)
            } else if let target {
                transfer.chain.append(target)
            }
            transfers[task.taskIdentifier] = transfer
            return transfer.failure
        }
        guard refusal == nil else {
            completionHandler(nil)
            task.cancel()
            return
        }
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let sink = transfers.withLock { transfers -> DataResponse.Sink? in
            let id = dataTask.taskIdentifier
            guard var transfer = transfers[id], transfer.failure == nil else { return nil }
            defer { transfers[id] = transfer }
            guard transfer.received + data.count <= transfer.limit else {
                transfer.failure = .tooLarge(source: transfer.source, limit: transfer.limit)
                return nil
            }
            transfer.received += data.count
            return transfer.sink
        }
        // URLSession cannot be paused: the bytes wait for their reader, within the limit.
        // Bytes of a response the delegate refused never reach here: a failed status cancels
        // the task before its body.
        guard let sink, sink.yield([UInt8](data)) else {
            dataTask.cancel()
            return
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let failure = transfer.failure ?? error.map { Self.loadingError($0, source: transfer.source) }
        transfer.continuation?.resume(returning: failure)
    }

    private static func loadingError(_ error: any Error, source: String) -> DataLoadingError {
        guard let urlError = error as? URLError else {
            return .connectionFailed(source: source, detail: String(describing: error))
        }
        switch urlError.code {
        case .cancelled: return .cancelled
        case .timedOut: return .timedOut(source: source)
        case .unsupportedURL, .badURL: return .unsupportedSource(source)
        default: return .connectionFailed(source: source, detail: urlError.localizedDescription)
        }
    }
}
