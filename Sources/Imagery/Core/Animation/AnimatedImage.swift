/// An animation's frames, composed (disposal and blending already applied), each a whole
/// canvas with its display duration, and how often the animation plays.
///
/// The pipeline returns one in ``ImageResponse/animation`` when the request asks for
/// animation (``ImageRequest/animation``) and the source has more than one frame; its frames
/// are then resized and processed as the request says, and the memory cache keeps them.
///
/// ```swift
/// var request = ImageRequest(url: gifURL, resize: .fit(width: 320, height: 320))
/// request.animation = AnimationLimits()
/// let response = try await pipeline.response(for: request)
/// if let animation = response.animation {
///     print(animation.frames.count, animation.duration, animation.loopCount)
///     let gif = try ImageEncoder(format: .gif).encode(animation)
/// }
/// ```
public struct AnimatedImage: Sendable, Equatable {
    /// The frames in display order; never empty, all of one size.
    public private(set) var frames: [AnimationFrame]
    /// How many times the animation plays: 0 for ever, 1 once, and so on (WebP's convention).
    public var loopCount: Int

    /// An animation of `frames`, played `loopCount` times (0: for ever).
    ///
    /// - Throws: ``ImageError/invalidRequest(_:)`` for no frames or frames of different sizes.
    public init(frames: [AnimationFrame], loopCount: Int = 0) throws(ImageError) {
        guard let first = frames.first else { throw .invalidRequest("an animation needs at least one frame") }
        guard frames.allSatisfy({ $0.image.width == first.image.width && $0.image.height == first.image.height }) else {
            throw .invalidRequest("an animation's frames must all be \(first.image.width)x\(first.image.height)")
        }
        self.frames = frames
        self.loopCount = max(0, loopCount)
    }

    /// The first frame: what a still-image consumer shows.
    public var poster: Bitmap { frames[0].image }

    /// The frames' size.
    public var size: PixelSize { PixelSize(width: poster.width, height: poster.height) }

    /// The time one play takes.
    public var duration: Duration { frames.reduce(.zero) { $0 + $1.duration } }

    /// Bytes of pixels held, for cache costs.
    public var byteCount: Int { frames.reduce(0) { $0 + $1.image.pixels.count } }

    /// The same animation with `transform` applied to every frame, durations kept.
    ///
    /// ```swift
    /// let small = try animation.mapFrames { try $0.resized(.fit(width: 64, height: 64)) }
    /// ```
    public func mapFrames(_ transform: (Bitmap) throws(ImageError) -> Bitmap) throws(ImageError) -> AnimatedImage {
        var frames: [AnimationFrame] = []
        frames.reserveCapacity(self.frames.count)
        for frame in self.frames {
            frames.append(AnimationFrame(image: try transform(frame.image), duration: frame.duration))
        }
        return try AnimatedImage(frames: frames, loopCount: loopCount)
    }
}

/// One composed frame of an animation: the whole canvas as it is shown, and for how long.
public struct AnimationFrame: Sendable, Equatable {
    /// The canvas as shown during this frame.
    public var image: Bitmap
    /// How long it is shown. GIF stores centiseconds and WebP milliseconds; a stored 0 is
    /// kept as 0 (players choose their own minimum, browsers show such frames for 100 ms).
    public var duration: Duration

    /// A frame showing `image` for `duration`.
    public init(image: Bitmap, duration: Duration) {
        self.image = image
        self.duration = duration
    }
}
