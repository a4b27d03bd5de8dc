import ImageryImgproxy

extension ServerSettings {
    static let processing: [ServerSetting] = [
        .text("presets", "Presets, name=option/option, comma-separated; one named default applies to every URL.", \.presets, imgproxy: "IMGPROXY_PRESETS").changing(.bytes),
        .text("presets-path", "A file of presets, one name=option/option per line (# starts a comment).", \.presetsPath, imgproxy: "IMGPROXY_PRESETS_PATH").changing(.bytes)
            .digesting { $0.resolved?.presetsText ?? (try? $0.readPresets()) ?? "unreadable" },
        .flag("only-presets", "URLs name presets only: /sig/thumb/plain/... (pr:thumb works too).", \.onlyPresets, imgproxy: "IMGPROXY_ONLY_PRESETS").changing(.bytes),
        .list("allowed-processing-options", "The options URLs may use, by either name (default: all); presets may use any.", \.allowedProcessingOptions, imgproxy: "IMGPROXY_ALLOWED_PROCESSING_OPTIONS").changing(.nothingStored),
        .flag("allow-security-options", "Let URLs lower the limits with max_src_resolution, max_src_file_size, max_animation_frames, max_animation_frame_resolution and max_result_dimension.", \.allowSecurityOptions, imgproxy: "IMGPROXY_ALLOW_SECURITY_OPTIONS").changing(.nothingStored),
        .list("format-quality", "Qualities per output format, format=quality (jpeg=80,avif=60), over --quality.", \.formatQuality, imgproxy: "IMGPROXY_FORMAT_QUALITY").changing(.bytes),
        .text("watermark-path", "The watermark image, a file read at start.", \.watermarkPath, imgproxy: "IMGPROXY_WATERMARK_PATH").changing(.bytes)
            .digesting { $0.watermark?.identity ?? $0.watermarkPath ?? "none" },
        .text("watermark-url", "The watermark image, fetched once at start through the source guard.", \.watermarkURL, imgproxy: "IMGPROXY_WATERMARK_URL").changing(.bytes),
        .text("watermark-data", "The watermark image, base64.", \.watermarkData, imgproxy: "IMGPROXY_WATERMARK_DATA").changing(.bytes),
        ServerSetting("watermark-opacity", .number, "The watermark's base opacity, 0 to 1, which each URL's opacity multiplies.", imgproxy: "IMGPROXY_WATERMARK_OPACITY", show: { ServerSetting.number($0.watermarkOpacity) }) {
            configuration, value throws(SettingError.Reason) in
            guard case let .number(opacity) = value, (0...1).contains(opacity) else { throw .outOfRange("0...1") }
            configuration.watermarkOpacity = opacity
        }.changing(.bytes),
    ]
}
