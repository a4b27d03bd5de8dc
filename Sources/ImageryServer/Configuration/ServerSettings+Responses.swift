import ImageryImgproxy

extension ServerSettings {
    static let responses: [ServerSetting] = [
        .whole("quality", "JPEG, WebP and AVIF quality when a URL gives none.", \.defaultQuality, in: 1...100, imgproxy: "IMGPROXY_QUALITY"),
        .flag("auto-avif", "Answer AVIF when Accept names image/avif and the URL names no format (imgproxy: off by default).", \.negotiation.autoAVIF, imgproxy: "IMGPROXY_AUTO_AVIF"),
        .flag("auto-webp", "Answer WebP when Accept names image/webp (and AVIF was not chosen) and the URL names no format (imgproxy: off by default).", \.negotiation.autoWebP, imgproxy: "IMGPROXY_AUTO_WEBP"),
        .flag("enforce-avif", "Answer AVIF to clients that take it even when the URL names another format.", \.negotiation.enforceAVIF, imgproxy: "IMGPROXY_ENFORCE_AVIF"),
        .whole("avif-speed", "aom's speed for AVIF, 0 (smallest files) to 10 (fastest).", \.avifSpeed, in: 0...10, imgproxy: "IMGPROXY_AVIF_SPEED"),
        .flag("enforce-webp", "Answer WebP to clients whose best is WebP even when the URL names another format.", \.negotiation.enforceWebP, imgproxy: "IMGPROXY_ENFORCE_WEBP"),
        .required("cache-control", "Cache-Control of images: a URL names its options and source, so its bytes never change.", \.cacheControl, imgproxy: "IMGPROXY_TTL, in seconds (max-age=N, public; no immutable)", check: headerValue),
        .required("error-cache-control", "Cache-Control of errors: short, so a fixed origin is seen soon.", \.errorCacheControl, check: headerValue),
    ]

    /// Why `value` cannot be a header value, or `nil`.
    static func headerValue(_ value: String) -> String? {
        value.allSatisfy({ (32...126).contains($0.asciiValue ?? 0) }) ? nil : "must be visible ASCII and spaces (it is an HTTP header value)"
    }
}
