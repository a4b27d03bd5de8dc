import Imagery

/// The frames an animated decode hands out, whether collected (``ImageDecoder/decodeAnimation(_:resize:allowsUpscaling:options:)``)
/// or streamed (``ImageDecoder/animationStream(_:resize:allowsUpscaling:options:)``): the
/// format reader's composed frames, box-reduced and resized as asked, up to the frame limit.
/// In a lenient decode a damaged frame after the first ends the animation, with a warning.
struct ScaledAnimationReader: AnimationFrameReading {
    private var base: any AnimationFrameReading
    private let resize: Resize?
    private let allowsUpscaling: Bool
    private let factor: Int
    private let lenient: Bool
    /// The frames this reader yields at most: the source's, within the frame limit.
    let frameCount: Int
    private var read = 0
    private var damage: [String] = []

    /// The reader for `data`'s animation, its header checked against `options`' pixel and
    /// animation limits; `nil` when `data` is no animation, or when the frame limit is 1
    /// (imgproxy's way of asking for a still).
    init?(_ data: [UInt8], resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) {
        guard let base = try ImageDecoder.animationReader(for: data, options: options), base.frameCount > 1 else { return nil }
        let limits = options.animation
        let canvas = base.canvasSize
        frameCount = min(base.frameCount, limits.maximumFrameCount)
        guard frameCount > 1 else { return nil }
        try limits.check(width: canvas.width, height: canvas.height, frames: frameCount, maximumPixelCount: options.maximumPixelCount)
        var draftOptions = options
        draftOptions.draft = allowsUpscaling ? nil : resize.map { Thumbnailer.draft(for: $0, headroom: options.draftHeadroom) }
        factor = DecodingOptions.boxFactor(forScale: draftOptions.draftScale(storedSize: canvas, orientation: .up))
        self.base = base
        self.resize = resize
        self.allowsUpscaling = allowsUpscaling
        lenient = options.policy == .lenient
    }

    /// The source's canvas; frames come out resized from it.
    var canvasSize: PixelSize { base.canvasSize }
    var loopCount: Int { base.loopCount }

    /// What the decode learned on the way: damage the GIF reader repaired or stopped at, and
    /// frames past the limit.
    var warnings: [String] {
        var warnings = (base as? GIFAnimationReader)?.warnings ?? []
        warnings += damage
        if base.frameCount > frameCount {
            warnings.append("decoded the first \(frameCount) of \(base.frameCount) frames (the animation frame limit)")
        }
        return warnings
    }

    mutating func nextFrame() throws(ImageError) -> AnimationFrame? {
        guard read < frameCount else { return nil }
        let next: AnimationFrame?
        do {
            next = try base.nextFrame()
        } catch {
            // A damaged later frame ends a lenient animation where it broke; a strict one fails.
            guard lenient, read > 0 else { throw error }
            damage.append("frame \(read + 1): \(error)")
            read = frameCount
            return nil
        }
        guard let next else { return nil }
        read += 1
        var image = RowCollector.reduced(next.image, factor: factor)
        if let resize { image = try image.resized(resize, allowsUpscaling: allowsUpscaling) }
        return AnimationFrame(image: image.alphaMode == .premultiplied ? image.withStraightAlpha() : image, duration: next.duration)
    }
}
