import ImageryImgproxy

extension ServerSettings {
    static let processing: [ServerSetting] = [
        .text("presets", "Presets, name=option/option, comma-separated; one named default applies to every URL.", \.presets, imgproxy: .same("PRESETS")).changing(.bytes),
        .text("presets-path", "A file of presets, one name=option/option per line (# starts a comment).", \.presetsPath, imgproxy: .same("PRESETS_PATH")).changing(.bytes)
            .digesting { ($0.presetsPath ?? "none") + "\n" + $1.presetsText },
        .flag("only-presets", "URLs name presets only: /sig/thumb/plain/... (pr:thumb works too).", \.onlyPresets, imgproxy: .same("ONLY_PRESETS")).changing(.bytes),
        ServerSetting("presets-separator", .text, "What separates presets in --presets (a presets file has one a line).", imgproxy: .same("PRESETS_SEPARATOR"), show: { $0.presetsSeparator }) {
            configuration, value throws(SettingError.Reason) in
            guard case let .text(separator) = value, !separator.isEmpty else { throw .invalid("must not be empty") }
            guard !separator.contains("=") && !separator.contains("/") else { throw .invalid("must not contain = or /, which presets are written with") }
            configuration.presetsSeparator = separator
        }.changing(.bytes),
        ServerSetting("arguments-separator", .text, "What separates an option's name from its arguments, in URLs and presets (rs:fit:300:200).", imgproxy: .same("ARGUMENTS_SEPARATOR"), show: { String($0.argumentsSeparator) }) {
            configuration, value throws(SettingError.Reason) in
            guard case let .text(separator) = value, !separator.isEmpty else { throw .invalid("must not be empty") }
            guard separator.count == 1, let character = separator.first else {
                throw .invalid("must be one character (imgproxy allows longer ones; imagery-server does not)")
            }
            guard !"/%?#@.".contains(character), !character.isWhitespace, !character.isLetter, !character.isNumber else {
                throw .invalid("must not be a letter, a digit, a space or one of / % ? # @ ., which URLs use otherwise")
            }
            configuration.argumentsSeparator = character
        }.changing(.bytes),
        ServerSetting("info-only-presets", .flag, "/info URLs name presets only (default: as --only-presets).", imgproxy: .same("INFO_ONLY_PRESETS"), default: "as --only-presets", show: {
            $0.infoOnlyPresets.map(String.init) ?? "as --only-presets"
        }) { configuration, value throws(SettingError.Reason) in
            guard case let .flag(flag) = value else { throw .invalid("expected true or false") }
            configuration.infoOnlyPresets = flag
        }.changing(.bytes),
        .list("allowed-info-options", "The /info options URLs may use, by either name (default: all); presets may use any.", \.allowedInfoOptions, imgproxy: .same("ALLOWED_INFO_OPTIONS")).changing(.nothingStored),
        .text("info-presets", "Presets of /info options, name=option/option (imgproxy offers these in Pro).", \.infoPresets).changing(.bytes)
            .digesting { $1.infoPresetsText },
        .text("info-presets-path", "A file of /info presets, one name=option/option per line.", \.infoPresetsPath).changing(.bytes)
            .digesting { ($0.infoPresetsPath ?? "none") + "\n" + $1.infoPresetsText },
        .list("allowed-processing-options", "The options URLs may use, by either name (default: all); presets may use any.", \.allowedProcessingOptions, imgproxy: .same("ALLOWED_PROCESSING_OPTIONS")).changing(.nothingStored),
        .flag("allow-security-options", "Let URLs lower the limits with max_src_resolution, max_src_file_size, max_animation_frames, max_animation_frame_resolution and max_result_dimension.", \.allowSecurityOptions, imgproxy: .same("ALLOW_SECURITY_OPTIONS")).changing(.nothingStored),
        .list("format-quality", "Qualities per output format, format=quality (jpeg=80,avif=60), over --quality.", \.formatQuality, imgproxy: .same("FORMAT_QUALITY")).changing(.bytes),
        .text("watermark-path", "The watermark image, a file read at start.", \.watermarkPath, imgproxy: .same("WATERMARK_PATH")).changing(.bytes)
            .digesting { configuration, _ in configuration.watermark?.identity ?? configuration.watermarkPath ?? "none" },
        .text("watermark-url", "The watermark image, fetched once at start through the source guard.", \.watermarkURL, imgproxy: .same("WATERMARK_URL")).changing(.bytes),
        .text("watermark-data", "The watermark image, base64.", \.watermarkData, imgproxy: .same("WATERMARK_DATA")).changing(.bytes),
        ServerSetting("watermark-opacity", .number, "The watermark's base opacity, 0 to 1, which each URL's opacity multiplies.", imgproxy: .same("WATERMARK_OPACITY"), show: { ServerSetting.number($0.watermarkOpacity) }) {
            configuration, value throws(SettingError.Reason) in
            guard case let .number(opacity) = value, (0...1).contains(opacity) else { throw .outOfRange("0...1") }
            configuration.watermarkOpacity = opacity
        }.changing(.bytes),
    ]
}
