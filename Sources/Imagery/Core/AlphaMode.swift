/// How a bitmap's alpha channel relates to its colour channels.
public enum AlphaMode: Sendable, Hashable {
    /// Every alpha byte is 255.
    case opaque
    /// Colour channels are independent of alpha (PNG, WebP and GIF convention).
    case straight
    /// Colour channels are already multiplied by alpha (Core Graphics convention).
    case premultiplied
}
