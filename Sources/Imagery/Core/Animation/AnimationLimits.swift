/// The limits an animated source is decoded under, as imgproxy sets them: a frame count, and
/// either a per-frame resolution or, when that is not set, the frames' pixels summed against
/// ``DecodingOptions/maximumPixelCount``. Frames past ``maximumFrameCount`` are not decoded
/// (the result says so in ``ImageMetadata/warnings``), which is imgproxy's behaviour too.
///
/// ```swift
/// var request = ImageRequest(url: gifURL, resize: .fit(width: 320, height: 320))
/// request.animation = AnimationLimits(maximumFrameCount: 100)
/// ```
public struct AnimationLimits: Sendable, Hashable {
    /// The most frames decoded. Default 256.
    public var maximumFrameCount: Int
    /// The largest canvas, in pixels, of one frame; `nil` (the default) sums the pixels of
    /// every decoded frame against ``DecodingOptions/maximumPixelCount`` instead.
    public var maximumFramePixelCount: Int?

    /// How the pipeline hands the animation back. Default ``Delivery-swift.enum/frames``.
    public var delivery: Delivery

    /// How the pipeline returns an animation, and what its memory cache keeps.
    public enum Delivery: Sendable, Hashable {
        /// Every frame decoded, resized and processed, in ``ImageResponse/animation``: what an
        /// app shows over and over.
        case frames
        /// An ``AnimationStream`` in ``ImageResponse/animationStream`` that decodes and
        /// processes each frame when it is read: what a server encodes once.
        case stream
    }

    /// Limits of `maximumFrameCount` frames, and per-frame pixels if given, with the
    /// animation delivered as `delivery` says.
    public init(maximumFrameCount: Int = 256, maximumFramePixelCount: Int? = nil, delivery: Delivery = .frames) {
        self.maximumFrameCount = max(1, maximumFrameCount)
        self.maximumFramePixelCount = maximumFramePixelCount
        self.delivery = delivery
    }

    /// Checks a canvas of `frames` frames of `width`×`height` against these limits and
    /// `maximumPixelCount`, before any frame is decoded; `frames` is already capped at
    /// ``maximumFrameCount``.
    ///
    /// - Throws: ``ImageError/tooLarge(width:height:limit:)``; for the summed check its height
    ///   is the frames' heights added up, the animation's pixels as one tall image.
    public func check(width: Int, height: Int, frames: Int, maximumPixelCount: Int) throws(ImageError) {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if let perFrame = maximumFramePixelCount {
            guard !overflow, pixels <= perFrame else { throw .tooLarge(width: width, height: height, limit: perFrame) }
            guard pixels <= maximumPixelCount else { throw .tooLarge(width: width, height: height, limit: maximumPixelCount) }
        } else {
            let (total, overflowed) = pixels.multipliedReportingOverflow(by: max(1, frames))
            guard !overflow, !overflowed, total <= maximumPixelCount else {
                throw .tooLarge(width: width, height: height.multipliedReportingOverflow(by: max(1, frames)).partialValue, limit: maximumPixelCount)
            }
        }
    }
}
