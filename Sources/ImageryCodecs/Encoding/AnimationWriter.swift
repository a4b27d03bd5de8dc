import Imagery

/// Writes an animation as GIF or WebP one frame at a time, so that an `AnimationStream` is
/// encoded while it is read and never held whole. Every frame must have the first one's size.
///
/// ```swift
/// var writer = try ImageEncoder(format: .gif).animationWriter(loopCount: stream.loopCount)
/// var frames = stream.frames()
/// while let frame = try await frames.next() { try writer.add(frame) }
/// let gif = try writer.finish()
/// ```
public struct AnimationWriter {
    private enum Output {
        case gif(GIFEncoder)
        #if WebP
        case webp(WebPAnimationWriter)
        #endif
    }

    private var output: Output

    init(format: ImageFormat, loopCount: Int, quality: Int, lossless: Bool) throws(ImageError) {
        switch format {
        case .gif:
            output = .gif(GIFEncoder(loopCount: loopCount))
        #if WebP
        case .webp:
            output = .webp(try WebPAnimationWriter(loopCount: loopCount, quality: quality, lossless: lossless))
        #endif
        default:
            throw .unsupportedFormat(format, reason: "this build writes no animated \(format) (animations are written as GIF or WebP)")
        }
    }

    /// Encodes `frame`, shown for its duration after the frames added before it.
    ///
    /// - Throws: `ImageError/invalidRequest(_:)` for a frame whose size is not the first
    ///   frame's, `ImageError/encodingFailed(_:detail:)` when the codec fails.
    public mutating func add(_ frame: AnimationFrame) throws(ImageError) {
        switch output {
        case var .gif(encoder):
            try encoder.add(frame)
            output = .gif(encoder)
        #if WebP
        case let .webp(writer):
            try writer.add(frame)
        #endif
        }
    }

    /// The encoded animation.
    ///
    /// - Throws: `ImageError/invalidRequest(_:)` when no frame was added.
    public mutating func finish() throws(ImageError) -> [UInt8] {
        switch output {
        case var .gif(encoder):
            return try encoder.finish()
        #if WebP
        case let .webp(writer):
            return try writer.finish()
        #endif
        }
    }
}
