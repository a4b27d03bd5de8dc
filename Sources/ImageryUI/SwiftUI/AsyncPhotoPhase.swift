import Imagery
#if canImport(SwiftUI)
import SwiftUI
#else
import SwiftUIStub
#endif

/// The phases ``AsyncPhoto`` hands to its content: `AsyncImagePhase` with progress, and with
/// the pipeline's typed error.
///
/// ```swift
/// AsyncPhoto(request: request) { phase in
///     switch phase {
///     case .empty: Color.gray.opacity(0.2)
///     case .loading(let progress, let preview):
///         if let preview { preview.resizable() } else { ProgressView(value: progress?.fraction ?? 0) }
///     case .success(let image): image.resizable()
///     case .failure(let error): Text(error.description)
///     }
/// }
/// ```
public enum AsyncPhotoPhase {
    /// No request, or it was cancelled.
    case empty
    /// On its way; the download's progress once bytes arrive, and the request's placeholder
    /// hash decoded, to show meanwhile, when it has one.
    case loading(DataProgress?, preview: Image? = nil)
    /// The image, ready to draw.
    case success(Image)
    /// Loading failed.
    case failure(ImagePipelineError)

    /// The image in ``success(_:)``, otherwise `nil`.
    public var image: Image? {
        if case let .success(image) = self { image } else { nil }
    }

    /// The preview in ``loading(_:preview:)``, otherwise `nil`.
    public var preview: Image? {
        if case let .loading(_, preview) = self { preview } else { nil }
    }

    /// The error in ``failure(_:)``, otherwise `nil`.
    public var error: ImagePipelineError? {
        if case let .failure(error) = self { error } else { nil }
    }

    /// `phase` with its bitmap (or, for a playing animation, `frame`) wrapped, without a copy,
    /// as an `Image` at `scale` pixels a point.
    init(_ phase: ImagePhase, frame: Bitmap? = nil, scale: CGFloat) {
        switch phase {
        case .empty: self = .empty
        case let .loading(progress, preview): self = .loading(progress, preview: preview.flatMap { Self.image($0, scale: 1) })
        case let .failure(error): self = .failure(error)
        case let .success(response):
            if let image = Self.image(frame ?? response.image, scale: scale) {
                self = .success(image)
            } else {
                self = .failure(.processingFailed(
                    source: "\(response.image.width)x\(response.image.height) bitmap",
                    .invalidRequest("Core Graphics refused the bitmap's layout")
                ))
            }
        }
    }

    /// `bitmap` as an `Image` at `scale` pixels a point, without a copy; `nil` when Core
    /// Graphics refuses its layout.
    private static func image(_ bitmap: Bitmap, scale: CGFloat) -> Image? {
        bitmap.makeCGImage().map { Image(decorative: $0, scale: scale, orientation: bitmap.orientation.named()) }
    }
}

/// SwiftUI names the EXIF orientations as Imagery does.
extension Image.Orientation: EXIFOrientationNaming {}
