extension ImgproxySettings {
    /// The settings of imgproxy Pro that imagery-server reads: autoquality, which it gives away
    /// (its rows say ``ServerSetting/ImgproxyName/pro(_:)``), and the neural networks
    /// autoquality's `ml` method would use in imgproxy, which it refuses by name (`ml` searches
    /// as `dssim` here, as imgproxy's does without a model).
    static let pro: [ImgproxySetting] = unchanged(pro: true) + [
        "AUTOQUALITY_JPEG_NET", "AUTOQUALITY_WEBP_NET", "AUTOQUALITY_AVIF_NET", "AUTOQUALITY_JXL_NET", "AUTOQUALITY_ML_INFERENCE_NUM_STREAMS",
        "AUTOQUALITY_ML_INFERENCE_NUM_THREADS", "AUTOQUALITY_ML_EXECUTION_MODE", "AUTOQUALITY_ML_CPU_PINNING", "ML_NUM_STREAMS",
        "ML_INFERENCE_NUM_THREADS", "ML_EXECUTION_MODE", "ML_CPU_PINNING",
    ].map { name -> ImgproxySetting in
        .refused(name, why: "imagery-server runs no neural network models: aq:ml searches as dssim, as imgproxy does without a model", instead: "", accepting: nil)
    }

    /// The other settings of imgproxy Pro, as its docs list them (`docs/imgproxy-settings.tsv`):
    /// imagery-server does not offer them, and says so by name when one is set.
    static let proNames: Set<String> = [
        "CUSTOM_REQUEST_HEADERS", "CUSTOM_RESPONSE_HEADERS", "CUSTOM_HEADERS_SEPARATOR", "REQUEST_HEADERS_PASSTHROUGH",
        "RESPONSE_HEADERS_PASSTHROUGH", "SERVER_NAME", "ALLOW_BYPASS_CACHE", "JPEG_NO_SUBSAMPLE", "JPEG_TRELLIS_QUANT",
        "JPEG_OVERSHOOT_DERINGING", "JPEG_OPTIMIZE_SCANS", "JPEG_QUANT_TABLE", "WEBP_COMPRESSION",
        "WEBP_SMART_SUBSAMPLE", "AVIF_SUBSAMPLE", "BEST_FORMAT_COMPLEXITY_THRESHOLD", "BEST_FORMAT_MAX_RESOLUTION",
        "BEST_FORMAT_BY_DEFAULT", "BEST_FORMAT_ALLOW_SKIPS", "ENABLE_VIDEO_THUMBNAILS", "VIDEO_THUMBNAIL_SECOND",
        "VIDEO_THUMBNAIL_KEYFRAMES", "VIDEO_THUMBNAIL_TILE_AUTO_KEYFRAMES", "VIDEO_THUMBNAIL_PROBE_SIZE",
        "VIDEO_THUMBNAIL_MAX_ANALYZE_DURATION", "ENABLE_RAW_FORMATS", "WATERMARK_PREPROCESS_URL",
        "WATERMARKS_CACHE_SIZE", "UNSHARP_MASKING_MODE", "UNSHARP_MASKING_WEIGHT", "UNSHARP_MASKING_DIVIDER",
        "SMART_CROP_ADVANCED", "SMART_CROP_ADVANCED_MODE", "SMART_CROP_FACE_DETECTION", "OBJECT_DETECTION_NET",
        "OBJECT_DETECTION_NET_TYPE", "OBJECT_DETECTION_CLASSES", "OBJECT_DETECTION_NET_SIZE",
        "OBJECT_DETECTION_CONFIDENCE_THRESHOLD", "OBJECT_DETECTION_NMS_THRESHOLD", "OBJECT_DETECTION_SWAP_RB",
        "OBJECT_DETECTION_FALLBACK_TO_SMART_CROP", "OBJECT_DETECTION_GRAVITY_MODE",
        "OBJECT_DETECTION_INFERENCE_NUM_STREAMS", "OBJECT_DETECTION_INFERENCE_NUM_THREADS",
        "OBJECT_DETECTION_EXECUTION_MODE", "OBJECT_DETECTION_CPU_PINNING", "CLASSIFICATION_NET",
        "CLASSIFICATION_CLASSES", "CLASSIFICATION_NET_SIZE", "CLASSIFICATION_THRESHOLD", "CLASSIFICATION_NORMALIZATION",
        "CLASSIFICATION_LAYOUT", "CLASSIFICATION_INFERENCE_NUM_STREAMS", "CLASSIFICATION_INFERENCE_NUM_THREADS",
        "CLASSIFICATION_EXECUTION_MODE", "CLASSIFICATION_CPU_PINNING", "CACHE_USE", "CACHE_PATH_PREFIX", "CACHE_BUCKET",
        "CACHE_KEY_HEADERS", "CACHE_KEY_COOKIES", "CACHE_REPORT_ERRORS", "CACHE_TAGS_FORMAT", "CACHE_FS_ROOT",
        "CACHE_S3_REGION", "CACHE_S3_ENDPOINT", "CACHE_S3_ENDPOINT_USE_PATH_STYLE", "CACHE_S3_USE_DECRYPTION_CLIENT",
        "CACHE_S3_ASSUME_ROLE_ARN", "CACHE_S3_ASSUME_ROLE_EXTERNAL_ID", "CACHE_GCS_KEY", "CACHE_GCS_ENDPOINT",
        "CACHE_ABS_NAME", "CACHE_ABS_KEY", "CACHE_ABS_ENDPOINT", "CACHE_SWIFT_USERNAME", "CACHE_SWIFT_API_KEY",
        "CACHE_SWIFT_AUTH_URL", "CACHE_SWIFT_AUTH_VERSION", "CACHE_SWIFT_TENANT", "CACHE_SWIFT_DOMAIN",
        "CACHE_SWIFT_TIMEOUT_SECONDS", "CACHE_SWIFT_CONNECT_TIMEOUT_SECONDS", "FALLBACK_IMAGE_PREPROCESS_URL",
        "FALLBACK_IMAGES_CACHE_SIZE", "INFO_PRESETS", "INFO_PRESETS_PATH", "LICENSE_KEY", "LICENSE_DEVELOPMENT_MODE",
        "PDF_NO_BACKGROUND", "STRIP_METADATA_DPI", "COLOR_PROFILES_DIR", "HEALTH_CHECK_MESSAGE",
    ]

    /// Whether `variable` (`IMGPROXY_…` or `IMAGERY_…`) names an imgproxy Pro setting.
    static func isProSetting(_ variable: String) -> Bool {
        let name = variable.drop { $0 != "_" }.dropFirst()
        return proNames.contains(String(name))
    }

    /// The variables whose values are secrets, never shown, never logged: imgproxy's names of
    /// the settings whose rows are secret, so that a secret is marked once, on its row.
    static let secretVariables: [String] = ServerSettings.all.filter(\.isSecret)
        .compactMap { $0.imgproxy?.name }
        .flatMap { ["IMGPROXY_" + $0, "IMAGERY_" + $0] }
}
