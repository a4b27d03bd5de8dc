import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// HTTP(S) through one URLSession. `URLSession.bytes(for:)` does not exist on Linux, so bytes
/// and progress arrive through a session delegate (``HTTPSessionDelegate``), which also
/// enforces the size limit while the body streams in.
final class HTTPDataLoader: Sendable {
    private let session: URLSession
    private let delegate: HTTPSessionDelegate
    private let configuration: DataLoader.Configuration

    init(configuration: DataLoader.Configuration) {
        self.configuration = configuration
        let delegate = HTTPSessionDelegate()
        let sessionConfiguration = URLSessionConfiguration.default
        sessionConfiguration.timeoutIntervalForRequest = configuration.timeout.seconds
        // The pipeline has its own memory and disk caches; URLCache would hold a second copy.
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.delegate = delegate
        self.session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        // A session retains its delegate until it is invalidated.
        session.finishTasksAndInvalidate()
    }

    func response(_ url: URL, headers: [String: String], source: String) async throws(DataLoadingError) -> DataResponse {
        let session = self.session, delegate = self.delegate, configuration = self.configuration
        return try await DataResponse.streaming { sink throws(DataLoadingError) in
            var request = URLRequest(url: url)
            request.timeoutInterval = configuration.timeout.seconds
            for (name, value) in configuration.additionalHeaders.merging(headers, uniquingKeysWith: { $1 }) {
                request.setValue(value, forHTTPHeaderField: name)
            }
            let task = session.dataTask(with: request)
            let transfer = HTTPSessionDelegate.Transfer(
                source: source, url: url, limit: configuration.maximumResponseSize,
                maximumRedirects: configuration.maximumRedirects, sink: sink
            )
            let failure = await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    delegate.start(task, transfer: transfer, continuation: continuation)
                }
            } onCancel: {
                task.cancel()
            }
            if let failure { throw failure }
        }
    }
}
