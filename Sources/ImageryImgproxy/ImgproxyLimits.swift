/// The bounds every imgproxy option is checked against: the parser refuses a URL past them, and
/// the URL builder never writes one. Written once, here.
///
/// ```swift
/// let sigma = min(requested, ImgproxyLimits.maximumBlurSigma)
/// ```
public enum ImgproxyLimits {
    /// The largest `blur` sigma. Larger blurs cost the same (three box passes) and look the same.
    public static let maximumBlurSigma = 100.0
    /// The largest `sharpen` sigma.
    public static let maximumSharpenSigma = 10.0
    /// The smallest `dpr`, in a URL or a `DPR` hint: a box divided by less would ask for a
    /// hundred times its own size.
    public static let minimumDPR = 0.01
    /// The largest `dpr`, as imgproxy's client hints allow.
    public static let maximumDPR = 8.0
    /// The smallest `zoom` factor on either axis: a thousandth of the image is one pixel of a
    /// large photo already.
    public static let minimumZoom = 0.001
    /// The largest `zoom` factor on either axis.
    public static let maximumZoom = 8.0
    /// The longest `filename`, in UTF-8 bytes.
    public static let maximumFilenameLength = 255
    /// The largest output side after `dpr`, so that one URL cannot ask for a gigapixel canvas.
    public static let maximumOutputSide = 8192
    /// The most pixels a resize may make: the largest box a URL may ask for. A box bounds
    /// both sides only when both are given; one side, a minimum width or a zoom on a source of
    /// extreme aspect (1 × 10,000,000) could otherwise ask for terapixels.
    public static let maximumOutputPixels = maximumOutputSide * maximumOutputSide
    /// The largest size or crop argument, in pixels (before `dpr`).
    public static let maximumDimension = 100_000
    /// The latest `expires` a URL may give (the year 2514): later is refused rather than overflowed.
    public static let latestExpiry = 1 << 34
    /// The quality range; 0 means the server's default.
    public static let qualities = 0...100
    /// The longest cache buster kept, in characters.
    public static let maximumCacheBusterLength = 256
}
