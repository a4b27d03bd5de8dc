import Imagery

/// What of its source's own metadata an answer keeps, as imgproxy's `strip_metadata`,
/// `keep_copyright` and `strip_color_profile` say (and its `IMGPROXY_STRIP_METADATA`,
/// `_KEEP_COPYRIGHT` and `_STRIP_COLOR_PROFILE`, whose defaults these are): by default every
/// block is stripped but the EXIF copyright and artist, and colours are converted to sRGB.
///
/// ```swift
/// var options = ImgproxyOptions()
/// options.metadata.strips = false          // sm:0: EXIF, XMP and IPTC kept
/// options.metadata.stripsColorProfile = false   // scp:0: the profile and its colours kept
/// ```
public struct ImgproxyMetadata: Sendable, Hashable {
    /// `strip_metadata`: EXIF, XMP and IPTC are stripped. Default `true`.
    public var strips = true
    /// `keep_copyright`: while stripping, the EXIF copyright and artist stay. Default `true`.
    public var keepsCopyright = true
    /// `strip_color_profile`: colours are converted to sRGB and the profile dropped; `false`
    /// keeps both as the source has them. Default `true`.
    public var stripsColorProfile = true

    public init() {}

    /// The source's blocks the pipeline has to read for this: EXIF for the copyright, every
    /// descriptive block when nothing is stripped, and the profile when it is kept.
    public var kept: KeptMetadata {
        var kept: KeptMetadata = strips ? (keepsCopyright ? [.exif] : []) : .descriptive
        if !stripsColorProfile { kept.insert(.colorProfile) }
        return kept
    }
}
