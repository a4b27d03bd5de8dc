import Foundation

/// The default loader: `http(s)` URLs through URLSession, files and `file://` URLs from the
/// local file system, and `ImageSource.custom(id:_:)` closures.
///
/// Make one and share it: it owns a `URLSession`.
///
/// ```swift
/// var configuration = DataLoader.Configuration()
/// configuration.maximumResponseSize = 20 << 20   // refuse anything over 20 MiB
/// configuration.timeout = .seconds(10)
/// let loader = DataLoader(configuration: configuration)
/// let bytes = try await loader.loadData(for: .url(url)) { print($0.completed) }   // or response(for:), as it arrives
/// ```
public struct DataLoader: DataLoading {
    /// Limits that apply to every source this loader reads.
    public struct Configuration: Sendable {
        /// The largest response or file accepted, in bytes; a larger one fails with
        /// ``DataLoadingError/tooLarge(source:limit:)`` as soon as it is known to be larger,
        /// without buffering the rest. Default: 64 MiB.
        public var maximumResponseSize: Int = 64 << 20
        /// How long an HTTP request may wait for its next byte before it fails with
        /// ``DataLoadingError/timedOut(source:)``. Default: 30 seconds.
        public var timeout: Duration = .seconds(30)
        /// Extra headers sent with every HTTP request (for example a `User-Agent`). Default: none.
        public var additionalHeaders: [String: String] = [:]
        /// Redirects followed for one request, each to http or https only; a longer chain, a
        /// loop or another scheme fails with ``DataLoadingError/redirectRefused(source:detail:)``,
        /// which is permanent (never retried). Default: 5.
        public var maximumRedirects = 5

        /// The defaults: 64 MiB, 30 s, no extra headers, 5 redirects.
        public init() {}
    }

    /// The limits this loader applies.
    public let configuration: Configuration
    private let http: HTTPDataLoader

    /// A loader with its own URLSession.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.http = HTTPDataLoader(configuration: configuration)
    }

    public func response(for source: ImageSource) async throws(DataLoadingError) -> DataResponse {
        switch source.kind {
        case let .url(url, headers):
            switch url.scheme?.lowercased() {
            case "http", "https":
                return try await http.response(url, headers: headers, source: source.description)
            case "file":
                return DataResponse(bytes: try await FileDataLoader.load(path: url.path, limit: configuration.maximumResponseSize))
            default:
                throw .unsupportedSource("\(source) (only http, https and file URLs are supported)")
            }
        case let .file(path):
            return DataResponse(bytes: try await FileDataLoader.load(path: path, limit: configuration.maximumResponseSize))
        case let .custom(_, load):
            return DataResponse(bytes: try await loadCustom(source, load))
        }
    }

    private func loadCustom(
        _ source: ImageSource, _ load: @Sendable () async throws -> [UInt8]
    ) async throws(DataLoadingError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            bytes = try await load()
        } catch is CancellationError {
            throw .cancelled
        } catch let error as DataLoadingError {
            throw error
        } catch {
            throw .customSourceFailed(source: source.description, detail: String(describing: error))
        }
        if Task.isCancelled { throw .cancelled }
        guard bytes.count <= configuration.maximumResponseSize else {
            throw .tooLarge(source: source.description, limit: configuration.maximumResponseSize)
        }
        return bytes
    }
}
