// Linux stand-in for the parts of UIKit that Imagery uses; see Sources/Stubs/README.md.
// Declarations follow developer.apple.com/documentation/uikit; bodies are placeholders.
#if os(Linux)
@_exported import CoreGraphicsStub

/// https://developer.apple.com/documentation/uikit/uiresponder
@MainActor @preconcurrency
open class UIResponder: NSObject {
    /// What `objc_setAssociatedObject` keeps on this object (the Objective-C runtime's job on
    /// Apple platforms).
    var associatedObjects: [UnsafeRawPointer: Any] = [:]

    public override init() { super.init() }
}

/// https://developer.apple.com/documentation/uikit/uitraitcollection
/// Not main-actor isolated, and Sendable, as UIKit declares it: a trait collection is an
/// immutable value object.
// @unchecked Sendable: the stub's instances hold no state, as UIKit's hold only immutable traits.
open class UITraitCollection: NSObject, @unchecked Sendable {
    /// https://developer.apple.com/documentation/uikit/uitraitcollection/displayscale
    open var displayScale: CGFloat { 2 }
}

/// https://developer.apple.com/documentation/uikit/uiview
@MainActor @preconcurrency
open class UIView: UIResponder {
    /// https://developer.apple.com/documentation/uikit/uiview/animationoptions
    public struct AnimationOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let allowUserInteraction = AnimationOptions(rawValue: 1 << 1)
        public static let beginFromCurrentState = AnimationOptions(rawValue: 1 << 2)
        public static let transitionCrossDissolve = AnimationOptions(rawValue: 5 << 20)
    }

    /// https://developer.apple.com/documentation/uikit/uiview/init(frame:)
    public init(frame: CGRect) { super.init() }

    /// https://developer.apple.com/documentation/uikit/uiview/init(coder:)
    public required init?(coder: NSCoder) { super.init() }

    public override convenience init() { self.init(frame: .zero) }

    /// https://developer.apple.com/documentation/uikit/uitraitenvironment/traitcollection
    open var traitCollection: UITraitCollection { UITraitCollection() }

    /// https://developer.apple.com/documentation/uikit/uiview/contentmode-swift.property
    open var contentMode: ContentMode = .scaleToFill

    /// https://developer.apple.com/documentation/uikit/uiview/contentmode-swift.enum
    public enum ContentMode: Int, Sendable {
        case scaleToFill = 0, scaleAspectFit, scaleAspectFill
    }

    /// https://developer.apple.com/documentation/uikit/uiview/addsubview(_:)
    open func addSubview(_ view: UIView) {}

    /// https://developer.apple.com/documentation/uikit/uiview/transition(with:duration:options:animations:completion:)
    /// The stub has nothing to animate: it makes the change at once.
    open class func transition(
        with view: UIView, duration: TimeInterval, options: UIView.AnimationOptions = [],
        animations: (() -> Void)?, completion: ((Bool) -> Void)? = nil
    ) {
        animations?()
        completion?(true)
    }
}

/// https://developer.apple.com/documentation/uikit/uiimageview
@MainActor @preconcurrency
open class UIImageView: UIView {
    /// https://developer.apple.com/documentation/uikit/uiimageview/image
    open var image: UIImage?

    /// https://developer.apple.com/documentation/uikit/uiimageview/init(image:)
    public init(image: UIImage?) {
        self.image = image
        super.init(frame: .zero)
    }

    public override init(frame: CGRect) { super.init(frame: frame) }

    public required init?(coder: NSCoder) { super.init(coder: coder) }
}

/// https://developer.apple.com/documentation/uikit/uiimage
open class UIImage: NSObject {
    /// https://developer.apple.com/documentation/uikit/uiimage/orientation
    public enum Orientation: Int, Sendable {
        case up = 0, down, left, right, upMirrored, downMirrored, leftMirrored, rightMirrored
    }

    /// https://developer.apple.com/documentation/uikit/uiimage/cgimage
    open private(set) var cgImage: CGImage?
    /// https://developer.apple.com/documentation/uikit/uiimage/scale
    open private(set) var scale: CGFloat = 1
    /// https://developer.apple.com/documentation/uikit/uiimage/imageorientation
    open private(set) var imageOrientation: UIImage.Orientation = .up

    /// https://developer.apple.com/documentation/uikit/uiimage/init(cgimage:scale:orientation:)
    public init(cgImage: CGImage, scale: CGFloat, orientation: UIImage.Orientation) {
        self.cgImage = cgImage
        self.scale = scale
        self.imageOrientation = orientation
        super.init()
    }

    /// https://developer.apple.com/documentation/uikit/uiimage/init(systemname:)
    public init?(systemName name: String) { super.init() }
}

/// https://developer.apple.com/documentation/uikit/uiaccessibility
public enum UIAccessibility {
    /// https://developer.apple.com/documentation/uikit/uiaccessibility/isreducemotionenabled
    @MainActor public static var isReduceMotionEnabled: Bool { false }
}
#endif
