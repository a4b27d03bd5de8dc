extension ImgproxySettings {
    static let security: [ImgproxySetting] = [
        .converted("MAX_SRC_RESOLUTION", .number, sets: ["max-source-pixels"], note: "megapixels") { configuration, value throws(SettingError.Reason) in
            guard case let .number(megapixels) = value, megapixels > 0, megapixels <= 1_000_000 else { throw .outOfRange("above 0, in megapixels") }
            configuration.maximumSourcePixels = Int((megapixels * 1_000_000).rounded())
            return nil
        },
        .converted("MAX_SRC_FILE_SIZE", .whole, sets: ["max-source-bytes"], note: "bytes; imgproxy's 0 (no limit) keeps ours") { configuration, value throws(SettingError.Reason) in
            guard case let .whole(bytes) = value, bytes >= 0 else { throw .invalid("expected a size in bytes") }
            guard bytes > 0 else {
                return "IMGPROXY_MAX_SRC_FILE_SIZE=0 means no limit in imgproxy; imagery-server keeps its limit of \(configuration.maximumSourceBytes) bytes (--max-source-bytes)"
            }
            configuration.maximumSourceBytes = bytes
            return nil
        },
        .same("MAX_ANIMATION_FRAMES", "max-animation-frames"),
        .converted("MAX_ANIMATION_FRAME_RESOLUTION", .number, sets: ["max-animation-frame-pixels"], note: "megapixels; 0 sums all frames") { configuration, value throws(SettingError.Reason) in
            guard case let .number(megapixels) = value, megapixels >= 0, megapixels <= 1_000_000 else { throw .outOfRange("0 or more, in megapixels") }
            configuration.maximumAnimationFramePixels = Int((megapixels * 1_000_000).rounded())
            return nil
        },
        .same("MAX_RESULT_DIMENSION", "max-result-dimension"),
        .same("ALLOWED_PROCESSING_OPTIONS", "allowed-processing-options"),
        .same("ALLOWED_INFO_OPTIONS", "allowed-info-options"),
        .converted("MAX_CHAINED_PIPELINES", .whole, sets: [], note: "imagery-server runs one pipeline a URL, within any limit") { _, value throws(SettingError.Reason) in
            guard case let .whole(count) = value, count >= 0 else { throw .invalid("expected 0 or more") }
            return nil
        },
        .same("MAX_REDIRECTS", "max-redirects"),
        .same("SECRET", "secret"),
        .same("SOURCE_URL_ENCRYPTION_KEY", "source-url-encryption-key"),
        .same("ALLOW_ORIGIN", "allow-origin"),
        .same("ALLOWED_SOURCES", "allowed-sources"),
        .same("ALLOW_LOOPBACK_SOURCE_ADDRESSES", "allow-loopback-sources"),
        .same("ALLOW_LINK_LOCAL_SOURCE_ADDRESSES", "allow-link-local-sources"),
        .same("ALLOW_PRIVATE_SOURCE_ADDRESSES", "allow-private-sources"),
        .converted(
            "PNG_UNLIMITED", .flag, sets: [],
            note: "accepted either way: the PNG decoder's chunk limits (1,000 kept, 16 MiB each) drop a text or metadata chunk past them with a warning and never refuse an image, so there is nothing to lift; the pixel limit stays"
        ) { _, value throws(SettingError.Reason) in
            guard case .flag = value else { throw .invalid("expected true or false") }
            return nil
        },
        .same("SVG_UNLIMITED", "svg-unlimited"),
        .same("SANITIZE_SVG", "sanitize-svg"),
        .same("IGNORE_SSL_VERIFICATION", "ignore-ssl-verification"),
        .same("ALLOW_SECURITY_OPTIONS", "allow-security-options"),
    ]

    static let cookies: [ImgproxySetting] = [
        .same("COOKIE_PASSTHROUGH", "cookie-passthrough"),
        .same("COOKIE_BASE_URL", "cookie-base-url"),
        .same("COOKIE_PASSTHROUGH_ALL", "cookie-passthrough-all"),
    ]
}
