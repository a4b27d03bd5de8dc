// UIKit and AppKit conveniences: two lines each over makeCGImage(). The UIKit part type-checks
// on Linux against the UIKit stub; the AppKit part only on macOS.
#if canImport(UIKit) || os(Linux)
import Imagery
#if canImport(UIKit)
import UIKit
#else
import UIKitStub
#endif

extension Bitmap {
    /// A `UIImage` of this bitmap (one copy of its pixels, as ``makeCGImage()`` makes).
    ///
    /// ```swift
    /// imageView.image = try await pipeline.response(for: request).image.makeUIImage(scale: traitCollection.displayScale)
    /// ```
    public func makeUIImage(scale: CGFloat = 1) -> UIImage? {
        makeCGImage().map { UIImage(cgImage: $0, scale: scale, orientation: orientation.named()) }
    }
}

extension UIImage.Orientation: EXIFOrientationNaming {}
#elseif canImport(AppKit)
import AppKit
import Imagery

extension Bitmap {
    /// An `NSImage` over this bitmap's pixels, without a copy, at its pixel size. AppKit has no
    /// orientation flag: call `oriented()` first for an image that is not upright.
    public func makeNSImage() -> NSImage? {
        makeCGImage().map { NSImage(cgImage: $0, size: .zero) }
    }
}
#endif
