// On Linux this type-checks against the UIKit stub (Sources/Stubs/UIKitStub); on macOS, where
// there is no UIKit, it is left out.
#if canImport(UIKit) || os(Linux)
import Imagery
#if canImport(UIKit)
import UIKit
#else
import UIKitStub
#endif

/// How a `UIImageView` shows what `loadImage(_:options:pipeline:)` loads into it.
///
/// ```swift
/// var options = ImageLoadingOptions(placeholder: UIImage(systemName: "photo"))
/// options.failureImage = UIImage(systemName: "exclamationmark.triangle")
/// imageView.loadImage(request, options: options)
/// ```
@MainActor
public struct ImageLoadingOptions {
    /// Shown while the image loads, when the request has no placeholder hash. Default: none
    /// (the view is emptied).
    public var placeholder: UIImage?
    /// Shown when loading fails. Default: none (the placeholder stays).
    public var failureImage: UIImage?
    /// How long an image that was not in the memory cache takes to fade in over the
    /// placeholder; 0 shows it at once. Default: 0.25 s. A memory-cache hit never fades.
    public var transitionDuration: TimeInterval

    /// Options with `placeholder`, `failureImage` and a fade of `transitionDuration` seconds.
    public init(placeholder: UIImage? = nil, failureImage: UIImage? = nil, transitionDuration: TimeInterval = 0.25) {
        self.placeholder = placeholder
        self.failureImage = failureImage
        self.transitionDuration = transitionDuration
    }
}
#endif
