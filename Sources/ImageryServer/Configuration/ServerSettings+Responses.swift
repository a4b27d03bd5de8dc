extension ServerSettings {
    static let responses: [ServerSetting] = [
        .whole("quality", "JPEG and WebP quality when a URL gives none.", \.defaultQuality, in: 1...100, imgproxy: "IMGPROXY_QUALITY"),
        .required("cache-control", "Cache-Control of images: a URL names its options and source, so its bytes never change.", \.cacheControl, imgproxy: "IMGPROXY_TTL, in seconds (max-age=N, public; no immutable)", check: headerValue),
        .required("error-cache-control", "Cache-Control of errors: short, so a fixed origin is seen soon.", \.errorCacheControl, check: headerValue),
    ]

    /// Why `value` cannot be a header value, or `nil`.
    static func headerValue(_ value: String) -> String? {
        value.allSatisfy({ (32...126).contains($0.asciiValue ?? 0) }) ? nil : "must be visible ASCII and spaces (it is an HTTP header value)"
    }
}
