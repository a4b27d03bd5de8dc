/// The EXIF orientation (tag 0x0112): how stored pixels map to the upright image.
///
/// ```swift
/// let upright = bitmap.oriented()   // applies bitmap.orientation, result is .up
/// ```
public enum ImageOrientation: Int, Sendable, Hashable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left to right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top to bottom.
    case downMirrored = 4
    /// 5: transposed (mirrored across the top-left to bottom-right diagonal).
    case leftMirrored = 5
    /// 6: must be rotated 90° clockwise for display.
    case right = 6
    /// 7: transversed (mirrored across the top-right to bottom-left diagonal).
    case rightMirrored = 7
    /// 8: must be rotated 90° counter-clockwise for display.
    case left = 8

    /// Whether display width and height are the stored height and width.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// Creates an orientation from an EXIF value, treating anything outside 1...8 as ``up``.
    public init(exifValue: Int) {
        self = ImageOrientation(rawValue: exifValue) ?? .up
    }
}
