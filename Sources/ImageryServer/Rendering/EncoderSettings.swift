import ImageryCodecs

/// How the server's encoders are tuned, beside a URL's quality and format: the operator's
/// `--avif-speed`, `--jpeg-progressive`, `--png-interlaced`, `--png-quantize`,
/// `--png-quantization-colors`, `--webp-effort`, `--webp-preset` and `--jxl-effort` (imgproxy's
/// `IMGPROXY_AVIF_SPEED`, `_JPEG_PROGRESSIVE`, `_PNG_INTERLACED`, `_PNG_QUANTIZE`,
/// `_PNG_QUANTIZATION_COLORS`, `_WEBP_EFFORT`, `_WEBP_PRESET` and `_JXL_EFFORT`). Each changes response bytes, so each is part of the settings digest.
struct EncoderSettings: Sendable, Equatable {
    /// aom's speed for AVIF, 0 to 10.
    var avifSpeed = 9
    var jpegProgressive = false
    var pngInterlaced = false
    /// Indexed PNGs of at most ``pngQuantizationColors`` colours.
    var pngQuantize = false
    var pngQuantizationColors = 256
    /// imgproxy's WebP effort, 1 to 6: libwebp's method.
    var webpEffort = 4
    var webpPreset = WebPPreset.default
    /// imgproxy's JPEG XL effort, 1 to 9: libjxl's.
    var jxlEffort = 4

    /// `encoder` with these settings; each format reads its own.
    func applied(to encoder: ImageEncoder) -> ImageEncoder {
        var encoder = encoder
        encoder.avifSpeed = avifSpeed
        encoder.jpegProgressive = jpegProgressive
        encoder.pngInterlaced = pngInterlaced
        encoder.pngQuantizationColors = pngQuantize ? pngQuantizationColors : nil
        encoder.webpEffort = webpEffort
        encoder.webpPreset = webpPreset
        encoder.jxlEffort = jxlEffort
        return encoder
    }
}
