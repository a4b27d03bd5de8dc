import Foundation
import Imagery
import ImageryCodecs
import ImageryImgproxy

extension ImgproxySettings {
    static let compression: [ImgproxySetting] = [
        .same("QUALITY", "quality"),
        .same("FORMAT_QUALITY", "format-quality"),
        .same("JPEG_PROGRESSIVE", "jpeg-progressive"),
        .same("PNG_INTERLACED", "png-interlaced"),
        .same("PNG_QUANTIZE", "png-quantize"),
        .same("PNG_QUANTIZATION_COLORS", "png-quantization-colors"),
        .same("WEBP_EFFORT", "webp-effort"),
        .same("WEBP_PRESET", "webp-preset"),
        .same("AVIF_SPEED", "avif-speed"),
        .same("JXL_EFFORT", "jxl-effort"),
    ]

    static let formats: [ImgproxySetting] = [
        .same("ALWAYS_RASTERIZE_SVG", "always-rasterize-svg"),
        .same("AUTO_WEBP", "auto-webp"),
        .deprecated("ENABLE_WEBP_DETECTION", of: "AUTO_WEBP"),
        .same("ENFORCE_WEBP", "enforce-webp"),
        .same("AUTO_AVIF", "auto-avif"),
        .deprecated("ENABLE_AVIF_DETECTION", of: "AUTO_AVIF"),
        .same("ENFORCE_AVIF", "enforce-avif"),
        .same("AUTO_JXL", "auto-jxl"),
        .same("ENFORCE_JXL", "enforce-jxl"),
        .same("PREFERRED_FORMATS", "preferred-formats"),
        .converted(
            "SKIP_PROCESSING_FORMATS", .list, sets: ["skip-processing-formats"],
            note: "formats imgproxy reads that this build does not are left out, with a warning"
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .list(names) = value else { throw .invalid("expected a comma-separated list") }
            let given = names.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
            if let unknown = given.first(where: { !ServerSettings.imgproxyFormatNames.contains($0) }) {
                throw .invalid("\(unknown.prefix(20)) is not an image format imgproxy knows")
            }
            let read = given.filter { ImageFormat(imgproxyExtension: $0).map(ImageDecoder.supportedFormats.contains) ?? false }
            try ServerSettings.setting(named: "skip-processing-formats").apply(&configuration, .list(read))
            let unread = given.filter { !read.contains($0) }
            return unread.isEmpty ? nil : "IMGPROXY_SKIP_PROCESSING_FORMATS lists \(unread.joined(separator: ", ")), which imagery-server does not read; left out"
        },
        .defaultOnly("PRESERVE_HDR", "false", why: "the pipeline is 8-bit: high-bit-depth sources are converted to 8 bits, as imgproxy does by default"),
        .same("ENABLE_CLIENT_HINTS", "enable-client-hints"),
    ]

    static let watermark: [ImgproxySetting] = [
        .same("WATERMARK_DATA", "watermark-data"), .same("WATERMARK_PATH", "watermark-path"),
        .same("WATERMARK_URL", "watermark-url"), .same("WATERMARK_OPACITY", "watermark-opacity"),
    ]

    static let fallback: [ImgproxySetting] = [
        .same("FALLBACK_IMAGE_DATA", "fallback-image-data"),
        .same("FALLBACK_IMAGE_PATH", "fallback-image-path"),
        .same("FALLBACK_IMAGE_URL", "fallback-image-url"),
        .same("FALLBACK_IMAGE_HTTP_CODE", "fallback-image-http-code"),
        .same("FALLBACK_IMAGE_TTL", "fallback-image-ttl"),
    ]

    static let presets: [ImgproxySetting] = [
        .same("PRESETS", "presets"),
        .same("PRESETS_SEPARATOR", "presets-separator"),
        .same("PRESETS_PATH", "presets-path"),
        .same("ONLY_PRESETS", "only-presets"),
        .same("INFO_ONLY_PRESETS", "info-only-presets"),
    ]
}
