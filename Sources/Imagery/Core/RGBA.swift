/// One 8-bit RGBA pixel.
public struct RGBA: Sendable, Hashable, CustomStringConvertible {
    /// Red, 0–255.
    public var red: UInt8
    /// Green, 0–255.
    public var green: UInt8
    /// Blue, 0–255.
    public var blue: UInt8
    /// Alpha, 0 (transparent) to 255 (opaque).
    public var alpha: UInt8

    /// A pixel from its channels; opaque unless `alpha` is given.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Opaque white.
    public static let white = RGBA(red: 255, green: 255, blue: 255)
    /// Opaque black.
    public static let black = RGBA(red: 0, green: 0, blue: 0)

    public var description: String { "rgba(\(red), \(green), \(blue), \(alpha))" }

    /// How this colour is written in cache keys (the processors' identifiers). Pinned by a
    /// golden test, independent of ``description``.
    public var identifier: String { "rgba(\(red), \(green), \(blue), \(alpha))" }
}
