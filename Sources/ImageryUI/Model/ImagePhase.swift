import Imagery

/// Where a view's image stands: nothing asked yet, on its way, shown, or failed.
///
/// ```swift
/// switch model.phase {
/// case .empty: placeholder()
/// case .loading(let progress, let preview): show(preview, progress)   // preview: the placeholder hash, decoded
/// case .success(let response): show(response.image)
/// case .failure(let error): Text(error.description)
/// }
/// ```
public enum ImagePhase: Sendable {
    /// No request, or the request was cancelled before it finished.
    case empty
    /// Loading; `progress` is that of the shared download, `nil` until bytes arrive or when the
    /// image is decoded from a disk cache. `preview` is a picture to show meanwhile: the
    /// request's `ImageRequest.placeholder`, decoded, when it has one.
    case loading(DataProgress?, preview: Bitmap? = nil)
    /// The image, with `origin` telling whether it came from memory, disk or
    /// the source.
    case success(ImageResponse)
    /// Loading failed; ``ImageModel/retry()`` tries again.
    case failure(ImagePipelineError)

    /// The response in ``success(_:)``, otherwise `nil`.
    public var response: ImageResponse? {
        if case let .success(response) = self { response } else { nil }
    }

    /// The error in ``failure(_:)``, otherwise `nil`.
    public var error: ImagePipelineError? {
        if case let .failure(error) = self { error } else { nil }
    }

    /// The preview in ``loading(_:preview:)``, otherwise `nil`.
    public var preview: Bitmap? {
        if case let .loading(_, preview) = self { preview } else { nil }
    }

    /// Whether the phase is ``loading(_:preview:)``.
    public var isLoading: Bool {
        if case .loading = self { true } else { false }
    }
}
