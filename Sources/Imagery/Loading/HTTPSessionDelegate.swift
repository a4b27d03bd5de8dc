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
        let progress: @Sendable (DataProgress) -> Void
        /// Hands each run of bytes of an accepted response on, when someone asked.
        let received: (@Sendable ([UInt8]) -> Void)?
        /// Every URL of the redirect chain so far, the first included, to catch a loop.
        var chain: [URL]
        var bytes: [UInt8] = []
        var expected: Int64?
        /// Set when the delegate itself stops the task (bad status, too large), so the
        /// resulting `URLError.cancelled` is reported as what really happened.
        var failure: DataLoadingError?
        var continuation: CheckedContinuation<Result<[UInt8], DataLoadingError>, Never>?

        init(
            source: String, url: URL, limit: Int, maximumRedirects: Int,
            progress: @escaping @Sendable (DataProgress) -> Void, received: (@Sendable ([UInt8]) -> Void)? = nil
        ) {
            self.source = source
            self.chain = [url]
            self.limit = limit
            self.maximumRedirects = maximumRedirects
            self.progress = progress
            self.received = received
        }
    }

    private let transfers = Locked<[Int: Transfer]>([:])

    func start(
        _ task: URLSessionDataTask,
        transfer: Transfer,
        continuation: CheckedContinuation<Result<[UInt8], DataLoadingError>, Never>
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
        let failure: DataLoadingError? = transfers.withLock { transfers in
            guard var transfer = transfers[dataTask.taskIdentifier] else { return nil }
            if let earlier = transfer.failure { return earlier }
            if status == 404 || status == 410 {
                transfer.failure = .notFound(source: transfer.source)
            } else if !(200...299).contains(status) {
                transfer.failure = .httpStatus(status, source: transfer.source)
            } else if let expected, expected > Int64(transfer.limit) {
                transfer.failure = .tooLarge(source: transfer.source, limit: transfer.limit)
            } else {
                transfer.expected = expected
                // Trust a declared length only so far: a hostile server could claim the whole
                // limit and then drip bytes, holding that much memory per connection.
                transfer.bytes.reserveCapacity(Int(min(expected ?? 0, Int64(transfer.limit), 4 << 20)))
            }
            let failure = transfer.failure
            transfers[dataTask.taskIdentifier] = transfer
            return failure
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
        let update: (DataProgress, @Sendable (DataProgress) -> Void, (@Sendable ([UInt8]) -> Void)?)? = transfers.withLock { transfers in
            let id = dataTask.taskIdentifier
            guard transfers[id] != nil, transfers[id]!.failure == nil else { return nil }
            if transfers[id]!.bytes.count + data.count > transfers[id]!.limit {
                transfers[id]!.failure = .tooLarge(source: transfers[id]!.source, limit: transfers[id]!.limit)
                transfers[id]!.bytes = []
                return nil
            }
            transfers[id]!.bytes.append(contentsOf: data)
            let transfer = transfers[id]!
            return (DataProgress(completed: Int64(transfer.bytes.count), total: transfer.expected), transfer.progress, transfer.received)
        }
        guard let (progress, report, received) = update else {
            dataTask.cancel()
            return
        }
        // Bytes of a response the delegate refused never reach here: a failed status cancels
        // the task before its body.
        received?([UInt8](data))
        report(progress)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let result: Result<[UInt8], DataLoadingError>
        if let failure = transfer.failure {
            result = .failure(failure)
        } else if let error {
            result = .failure(Self.loadingError(error, source: transfer.source))
        } else {
            result = .success(transfer.bytes)
        }
        transfer.continuation?.resume(returning: result)
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
