/// Why ``ImagePipeline`` could not deliver an image: one case per stage, each carrying the
/// source (redacted for logs) and the stage's own error.
///
/// ```swift
/// do {
///     let response = try await pipeline.response(for: request)
/// } catch .cancelled {
///     // the caller went away
/// } catch .loadingFailed(let error) where error.isTransient {
///     // offer a retry
/// } catch {
///     logger.warning("\(error)")   // "decoding https://x/y.jpg failed: JPEG data is truncated: …"
/// }
/// ```
public enum ImagePipelineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes could not be loaded.
    case loadingFailed(DataLoadingError)
    /// The bytes were loaded but are not a decodable image.
    case decodingFailed(source: String, ImageError)
    /// The image decoded but could not be processed (for example a zero target size).
    case processingFailed(source: String, ImageError)
    /// The caller cancelled, or every caller waiting for the work went away.
    case cancelled

    /// A short, stable name for the kind of failure, for statistics and metrics.
    /// Every ``kind`` there is, for metrics that are made once.
    static let allKinds = DataLoadingError.allKinds + ["decoding", "processing"]   // "cancelled" is in both

    public var kind: String {
        switch self {
        case let .loadingFailed(error): error.kind
        case .decodingFailed: "decoding"
        case .processingFailed: "processing"
        case .cancelled: "cancelled"
        }
    }

    public var description: String {
        switch self {
        case let .loadingFailed(error): "loading failed: \(error)"
        case let .decodingFailed(source, error): "decoding \(source) failed: \(error)"
        case let .processingFailed(source, error): "processing \(source) failed: \(error)"
        case .cancelled: "cancelled"
        }
    }
}
