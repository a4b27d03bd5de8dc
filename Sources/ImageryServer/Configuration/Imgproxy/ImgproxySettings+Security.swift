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
        .converted("MAX_ANIMATION_FRAME_RESOLUTION", .number, sets: ["max-animation-frame-pixels"], note: "megapixels; 0 sums all frames") { configuration, value throws(SettingError.Reason) in
            guard case let .number(megapixels) = value, megapixels >= 0, megapixels <= 1_000_000 else { throw .outOfRange("0 or more, in megapixels") }
            configuration.maximumAnimationFramePixels = Int((megapixels * 1_000_000).rounded())
            return nil
        },
        .converted("MAX_CHAINED_PIPELINES", .whole, sets: [], note: "imagery-server runs one pipeline a URL, within any limit") { _, value throws(SettingError.Reason) in
            guard case let .whole(count) = value, count >= 0 else { throw .invalid("expected 0 or more") }
            return nil
        },
        .converted(
            "PNG_UNLIMITED", .flag, sets: [],
            note: "accepted either way: the PNG decoder's chunk limits (1,000 kept, 16 MiB each) drop a text or metadata chunk past them with a warning and never refuse an image, so there is nothing to lift; the pixel limit stays"
        ) { _, value throws(SettingError.Reason) in
            guard case .flag = value else { throw .invalid("expected true or false") }
            return nil
        },
    ]
}
