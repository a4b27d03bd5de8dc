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

    /// Width times height.
    public var pixelCount: Int { width * height }

    public var description: String { "\(width)x\(height)" }
}
