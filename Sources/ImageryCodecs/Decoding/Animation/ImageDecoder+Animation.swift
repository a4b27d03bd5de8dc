import Imagery

extension ImageDecoder {
    /// A frame-by-frame reader for an animated GIF, or with the `WebP` trait an animated
    /// WebP; `nil` for other formats and for a WebP that is not animated. The canvas is checked
    /// against `options.maximumPixelCount` first; the frame limits of `options.animation` are
    /// the caller's to apply (``decodeAnimation(_:resize:allowsUpscaling:options:)`` does).
    ///
    /// ```swift
    /// if var reader = try ImageDecoder.animationReader(for: bytes, options: DecodingOptions()) {
    ///     while let frame = try reader.nextFrame() { print(frame.duration) }
    /// }
    /// ```
    public static func animationReader(for data: [UInt8], options: DecodingOptions) throws(ImageError) -> (any AnimationFrameReading)? {
        switch ImageFormat(sniffing: data) {
        case .gif:
            return try GIFAnimationReader(data, options: options)
        case .webp:
            #if WebP
            guard ImageHeader.frameCount(of: data, format: .webp) > 1 || Self.declaresAnimation(data) else { return nil }
            return try WebPAnimationReader(data, options: options)
            #else
            return nil
            #endif
        default:
            return nil
        }
    }

    /// Decodes every frame of an animated GIF or WebP, within `options.animation` and the pixel
    /// limit, each resized as `resize` asks (box-reduced first when the canvas is at least twice
    /// the draft, as still decodes are); `nil` for a still, which the caller decodes as one.
    /// Frames past the frame limit are not decoded, and the first frame's
    /// ``ImageMetadata/warnings`` says so.
    ///
    /// ```swift
    /// if let animation = try ImageDecoder().decodeAnimation(bytes, resize: .fit(width: 200, height: 200),
    ///                                                      allowsUpscaling: false, options: DecodingOptions()) {
    ///     let webp = try ImageEncoder(format: .webp).encode(animation)
    /// }
    /// ```
    public func decodeAnimation(
        _ data: [UInt8], resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions
    ) throws(ImageError) -> AnimatedImage? {
        guard var reader = try Self.animationReader(for: data, options: options), reader.frameCount > 1 else { return nil }
        let limits = options.animation
        let canvas = reader.canvasSize
        let wanted = min(reader.frameCount, limits.maximumFrameCount)
        guard wanted > 1 else { return nil }   // a limit of one frame is imgproxy's way of asking for a still
        try limits.check(width: canvas.width, height: canvas.height, frames: wanted, maximumPixelCount: options.maximumPixelCount)
        var draftOptions = options
        draftOptions.draft = allowsUpscaling ? nil : resize.map { Thumbnailer.draft(for: $0, headroom: options.draftHeadroom) }
        let factor = DecodingOptions.boxFactor(forScale: draftOptions.draftScale(storedSize: canvas, orientation: .up))
        var frames: [AnimationFrame] = []
        var warnings: [String] = []
        while frames.count < wanted {
            let next: AnimationFrame?
            do {
                next = try reader.nextFrame()
            } catch {
                // A damaged later frame ends a lenient animation where it broke; a strict one fails.
                guard options.policy == .lenient, !frames.isEmpty else { throw error }
                warnings.append("frame \(frames.count + 1): \(error)")
                break
            }
            guard let next else { break }
            let image = try Self.scaled(next.image, factor: factor, resize: resize, allowsUpscaling: allowsUpscaling)
            frames.append(AnimationFrame(image: image, duration: next.duration))
        }
        guard !frames.isEmpty else { return nil }
        if let gif = reader as? GIFAnimationReader { warnings = gif.warnings + warnings }
        if reader.frameCount > wanted {
            warnings.append("decoded the first \(wanted) of \(reader.frameCount) frames (the animation frame limit)")
        }
        frames[0].image.metadata.warnings += warnings
        return try AnimatedImage(frames: frames, loopCount: reader.loopCount)
    }

    private static func scaled(_ frame: Bitmap, factor: Int, resize: Resize?, allowsUpscaling: Bool) throws(ImageError) -> Bitmap {
        var image = RowCollector.reduced(frame, factor: factor)
        if let resize { image = try image.resized(resize, allowsUpscaling: allowsUpscaling) }
        return image.alphaMode == .premultiplied ? image.withStraightAlpha() : image
    }

    /// A VP8X header with its animation flag: an animation of one frame is still read as one.
    private static func declaresAnimation(_ data: [UInt8]) -> Bool {
        data.count > 20 && data[12] == 0x56 && data[13] == 0x50 && data[14] == 0x38 && data[15] == 0x58 && data[20] & 0x02 != 0
    }
}
