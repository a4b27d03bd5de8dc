/// Reads an animation one composed frame at a time, so a decoder never holds every frame at
/// full size: each call composes the next frame onto the canvas (the previous frame's
/// disposal and this one's blending applied) and returns a copy of it.
///
/// ```swift
/// var reader = try ImageDecoder.animationReader(for: bytes, options: DecodingOptions())
/// while let frame = try reader?.nextFrame() {
///     show(frame.image, for: frame.duration)
/// }
/// ```
public protocol AnimationFrameReading {
    /// The canvas every frame is composed on.
    var canvasSize: PixelSize { get }
    /// How many frames the file declares (or holds, for formats that count them).
    var frameCount: Int { get }
    /// How many times the animation plays: 0 for ever.
    var loopCount: Int { get }
    /// The next composed frame, or `nil` after the last.
    ///
    /// - Throws: ``ImageError`` for damaged frame data; frames already returned stay valid.
    mutating func nextFrame() throws(ImageError) -> AnimationFrame?
}
