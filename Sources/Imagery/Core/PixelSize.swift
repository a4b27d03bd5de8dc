/// A size in whole pixels.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// A size of `width` × `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Width times height; `Int.max` when that is more than `Int` holds (a size read from a
    /// file's header may say 2³² a side).
    public var pixelCount: Int {
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? .max : count
    }

    public var description: String { "\(width)x\(height)" }
}
