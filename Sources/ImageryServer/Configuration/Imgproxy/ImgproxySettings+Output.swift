extension ImgproxySettings {
    static let compression: [ImgproxySetting] = [
        .same("QUALITY", "quality"),
        .same("FORMAT_QUALITY", "format-quality"),
        pending("JPEG_PROGRESSIVE", "progressive JPEG output"),
        pending("PNG_INTERLACED", "interlaced PNG output"),
        pending("PNG_QUANTIZE", "quantized PNG output"),
        pending("PNG_QUANTIZATION_COLORS", "quantized PNG output"),
        pending("WEBP_EFFORT", "WebP's effort"),
        pending("WEBP_PRESET", "WebP's presets"),
        .same("AVIF_SPEED", "avif-speed"),
        pending("JXL_EFFORT", "JPEG XL output"),
    ]

    static let formats: [ImgproxySetting] = [
        pending("ALWAYS_RASTERIZE_SVG", "SVG sources"),
        .same("AUTO_WEBP", "auto-webp"),
        .deprecated("ENABLE_WEBP_DETECTION", of: "AUTO_WEBP"),
        .same("ENFORCE_WEBP", "enforce-webp"),
        .same("AUTO_AVIF", "auto-avif"),
        .deprecated("ENABLE_AVIF_DETECTION", of: "AUTO_AVIF"),
        .same("ENFORCE_AVIF", "enforce-avif"),
        pending("AUTO_JXL", "JPEG XL output"),
        pending("ENFORCE_JXL", "JPEG XL output"),
        .same("PREFERRED_FORMATS", "preferred-formats"),
        pending("SKIP_PROCESSING_FORMATS", "skipping processing by format"),
        .defaultOnly("PRESERVE_HDR", "false", why: "the pipeline is 8-bit: high-bit-depth sources are converted to 8 bits, as imgproxy does by default"),
        .same("ENABLE_CLIENT_HINTS", "enable-client-hints"),
    ]

    static let watermark: [ImgproxySetting] = [
        .same("WATERMARK_DATA", "watermark-data"), .same("WATERMARK_PATH", "watermark-path"),
        .same("WATERMARK_URL", "watermark-url"), .same("WATERMARK_OPACITY", "watermark-opacity"),
    ]

    static let fallback: [ImgproxySetting] = [
        pending("FALLBACK_IMAGE_DATA", "a fallback image"),
        pending("FALLBACK_IMAGE_PATH", "a fallback image"),
        pending("FALLBACK_IMAGE_URL", "a fallback image"),
        pending("FALLBACK_IMAGE_HTTP_CODE", "a fallback image"),
        pending("FALLBACK_IMAGE_TTL", "a fallback image"),
    ]

    static let presets: [ImgproxySetting] = [
        .same("PRESETS", "presets"),
        pending("PRESETS_SEPARATOR", "another presets separator"),
        .same("PRESETS_PATH", "presets-path"),
        .same("ONLY_PRESETS", "only-presets"),
        pending("INFO_ONLY_PRESETS", "presets for /info"),
    ]
}
