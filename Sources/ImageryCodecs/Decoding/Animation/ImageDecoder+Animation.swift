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
    /// `ImageMetadata/warnings` says so.
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
        guard var reader = try ScaledAnimationReader(data, resize: resize, allowsUpscaling: allowsUpscaling, options: options) else { return nil }
        var frames: [AnimationFrame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        guard !frames.isEmpty else { return nil }
        frames[0].image.metadata.warnings += reader.warnings
        return try AnimatedImage(frames: frames, loopCount: reader.loopCount)
    }

    /// The frames ``decodeAnimation(_:resize:allowsUpscaling:options:)`` decodes, as a stream
    /// that decodes each when it is read: the header and limits are checked and the first frame
    /// decoded now (the `AnimationStream/poster`, carrying the warnings known so far); `nil`
    /// for a still. The stream keeps `data`, not its frames.
    ///
    /// ```swift
    /// if let stream = try ImageDecoder().animationStream(bytes, resize: .fit(width: 200, height: 200),
    ///                                                   allowsUpscaling: false, options: DecodingOptions()) {
    ///     var frames = stream.frames()
    ///     while let frame = try await frames.next() { print(frame.duration) }
    /// }
    /// ```
    public func animationStream(
        _ data: [UInt8], resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions
    ) throws(ImageError) -> AnimationStream? {
        guard var reader = try ScaledAnimationReader(data, resize: resize, allowsUpscaling: allowsUpscaling, options: options),
              var poster = try reader.nextFrame()?.image else { return nil }
        poster.metadata.warnings += reader.warnings
        return AnimationStream(
            frameCount: reader.frameCount, loopCount: reader.loopCount, poster: poster, sourceByteCount: data.count
        ) { () throws(ImageError) -> any AnimationFrameReading in
            // The header was accepted a moment ago; it is read again, not trusted from then.
            guard let reader = try ScaledAnimationReader(data, resize: resize, allowsUpscaling: allowsUpscaling, options: options) else {
                throw .corrupt(ImageFormat(sniffing: data) ?? .gif, detail: "the animation could not be read again")
            }
            return reader
        }
    }

    /// A VP8X header with its animation flag: an animation of one frame is still read as one.
    private static func declaresAnimation(_ data: [UInt8]) -> Bool {
        data.count > 20 && data[12] == 0x56 && data[13] == 0x50 && data[14] == 0x38 && data[15] == 0x58 && data[20] & 0x02 != 0
    }
}
