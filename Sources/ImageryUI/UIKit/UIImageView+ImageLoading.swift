// On Linux this type-checks against the UIKit stub (Sources/Stubs/UIKitStub); on macOS, where
// there is no UIKit, it is left out. Everything it decides is ImageLoadingController's.
// Not on watchOS: UIKit there has no UIImageView, view transitions or collection views.
#if (canImport(UIKit) && !os(watchOS)) || os(Linux)
import Imagery
#if canImport(UIKit)
import UIKit
#else
import UIKitStub
#endif

extension UIImageView {
    /// Loads `request` into this view: a memory-cache hit at once, in the same frame;
    /// otherwise the request's placeholder hash or `options.placeholder` until the image fades
    /// in, and `options.failureImage` if it fails. A load this view started earlier is
    /// cancelled, and its result never lands here, so a reused cell never shows another
    /// row's image. Animated images play (ask for them with `ImageRequest.animation`).
    ///
    /// ```swift
    /// override func prepareForReuse() {
    ///     super.prepareForReuse()
    ///     photoView.cancelImageLoad()
    /// }
    ///
    /// func configure(with photo: Photo) {
    ///     photoView.loadImage(ImageRequest(url: photo.url, resize: .fill(width: 160, height: 160)))
    /// }
    /// ```
    public func loadImage(_ request: ImageRequest?, options: ImageLoadingOptions = ImageLoadingOptions(), pipeline: ImagePipeline = .shared) {
        let controller = imageLoadingController
        (controller.display as? ImageViewTarget)?.options = options
        controller.model.pipeline = pipeline
        controller.model.reducesMotion = UIAccessibility.isReduceMotionEnabled
        controller.load(request)
    }

    /// Cancels this view's load and empties it: call it from the cell's `prepareForReuse()`.
    public func cancelImageLoad() {
        imageLoadingController.prepareForReuse()
    }

    /// The controller behind this view's loads, made on first use and kept with the view: its
    /// ``ImageLoadingController/model`` has the phase, the progress and the playback switches
    /// (pause an animation while the cell is off screen with `model.isVisible = false`).
    public var imageLoadingController: ImageLoadingController {
        if let controller = objc_getAssociatedObject(self, Self.controllerKey) as? ImageLoadingController {
            return controller
        }
        let controller = ImageLoadingController(display: ImageViewTarget(view: self))
        objc_setAssociatedObject(self, Self.controllerKey, controller, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return controller
    }

    /// The associated object's key: the address of a byte nobody else has.
    private static let controllerKey = UnsafeRawPointer(UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1))
}

/// Shows an ``ImageLoadingController``'s content in a `UIImageView` as the options say. It holds
/// the view weakly: the view holds the controller, which holds this.
@MainActor
final class ImageViewTarget: ImageDisplaying {
    weak var view: UIImageView?
    var options = ImageLoadingOptions()

    init(view: UIImageView) {
        self.view = view
    }

    func display(_ content: ImageViewContent) {
        guard let view else { return }
        switch content {
        case .empty:
            view.image = nil
        case let .placeholder(preview):
            view.image = preview?.makeUIImage() ?? options.placeholder
        case .failure:
            if let failureImage = options.failureImage { view.image = failureImage }
        case let .image(bitmap, transition):
            let image = bitmap.makeUIImage(scale: view.traitCollection.displayScale)
            if transition, options.transitionDuration > 0 {
                UIView.transition(with: view, duration: options.transitionDuration, options: [.transitionCrossDissolve, .allowUserInteraction]) {
                    view.image = image
                }
            } else {
                view.image = image
            }
        }
    }
}
#endif
