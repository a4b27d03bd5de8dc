import Imagery

/// A view that shows what an ``ImageLoadingController`` decides: the role a `UIImageView`
/// plays through Imagery's UIKit shell, and a recording double plays in tests.
///
/// ```swift
/// final class LayerTarget: ImageDisplaying {
///     let layer: CALayer
///     init(layer: CALayer) { self.layer = layer }
///     func display(_ content: ImageViewContent) {
///         if case let .image(bitmap, _) = content { layer.contents = bitmap.makeCGImage() }
///     }
/// }
/// ```
@MainActor
public protocol ImageDisplaying: AnyObject {
    /// Shows `content` now.
    func display(_ content: ImageViewContent)
}

/// What an image view shows at one moment of a load.
public enum ImageViewContent: Sendable {
    /// Nothing: no request, or its load was cancelled.
    case empty
    /// The image is on its way: show `preview` (the request's placeholder hash, decoded) when
    /// there is one, else the view's own placeholder.
    case placeholder(preview: Bitmap?)
    /// The image, or the frame of a playing animation. `transition` says whether to fade it in:
    /// it replaces a placeholder and did not come from the memory cache.
    case image(Bitmap, transition: Bool)
    /// Loading failed: show the view's failure image.
    case failure(ImagePipelineError)
}
