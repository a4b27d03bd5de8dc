import Imagery

/// An orientation enum of UIKit or SwiftUI: both name EXIF's eight orientations as
/// ``ImageOrientation`` does, so one mapping serves them both.
protocol EXIFOrientationNaming {
    static var up: Self { get }
    static var upMirrored: Self { get }
    static var down: Self { get }
    static var downMirrored: Self { get }
    static var left: Self { get }
    static var leftMirrored: Self { get }
    static var right: Self { get }
    static var rightMirrored: Self { get }
}

extension ImageOrientation {
    /// This orientation in a platform's enum of the same names.
    func named<Named: EXIFOrientationNaming>() -> Named {
        switch self {
        case .up: .up
        case .upMirrored: .upMirrored
        case .down: .down
        case .downMirrored: .downMirrored
        case .left: .left
        case .leftMirrored: .leftMirrored
        case .right: .right
        case .rightMirrored: .rightMirrored
        }
    }
}
