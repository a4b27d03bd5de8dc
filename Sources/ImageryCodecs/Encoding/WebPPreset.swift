/// What a WebP encode is tuned for: libwebp's presets, which set its filter strength,
/// sharpness and noise shaping for a kind of picture (imgproxy's `IMGPROXY_WEBP_PRESET`).
///
/// ```swift
/// var encoder = try ImageEncoder(format: .webp, quality: 80)
/// encoder.webpPreset = .photo
/// ```
public enum WebPPreset: String, CaseIterable, Sendable {
    /// libwebp's defaults: what `WebPEncodeRGBA` writes.
    case `default`
    /// Outdoor photographs, with natural lighting.
    case photo
    /// Indoor photographs, such as portraits.
    case picture
    /// Drawings, with high-contrast detail.
    case drawing
    /// Small, colourful images.
    case icon
    /// Text-like images.
    case text
}
