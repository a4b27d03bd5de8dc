extension ServerSettings {
    /// How answers say how fresh they are, and what stands in when a source cannot be had.
    static let freshness: [ServerSetting] = [
        .flag("use-etag", "Send an ETag with every answer and answer If-None-Match with 304.", \.useETag, imgproxy: .same("USE_ETAG")).changing(.storedHeaders),
        .text("etag-buster", "Mixed into every ETag: change it to change them all, so that clients fetch every image again.", \.etagBuster, imgproxy: .same("ETAG_BUSTER")).changing(.storedHeaders),
        .flag("use-last-modified", "Send the source's Last-Modified and answer If-Modified-Since with 304.", \.useLastModified, imgproxy: .same("USE_LAST_MODIFIED")).changing(.storedHeaders),
        .text("last-modified-buster", "An RFC 3339 time (2024-05-01T12:00:00Z) no Last-Modified is earlier than: every image counts as modified then at the earliest.", \.lastModifiedBuster, imgproxy: .same("LAST_MODIFIED_BUSTER"), check: ServerConfiguration.rfc3339Problem).changing(.storedHeaders),
        .flag("cache-control-passthrough", "Send the source's Cache-Control (or its Expires as a max-age) in place of --cache-control; what it forbids storing is stored in no tier, and what it ages out is made again.", \.cacheControlPassthrough, imgproxy: .same("CACHE_CONTROL_PASSTHROUGH")).changing(.storedHeaders),
        .flag("set-canonical-header", "Send Link: <source>; rel=\"canonical\" with images of http(s) sources.", \.setCanonicalHeader, imgproxy: .same("SET_CANONICAL_HEADER")).changing(.storedHeaders),
        // Every tier keeps what the headers say whether or not they are sent: turning them on
        // changes nothing stored.
        .flag("enable-debug-headers", "Send X-Origin-Content-Length, X-Origin-Width, X-Origin-Height, X-Result-Width, X-Result-Height (as imgproxy) and X-Imagery-Quality, the quality the answer was encoded at, with image answers, and X-Imagery-Tier, the response tier that answered (memory, disk, bucket, none).", \.enableDebugHeaders, imgproxy: .same("ENABLE_DEBUG_HEADERS")).changing(.nothingStored),
        .text("fallback-image-data", "The image served when a source cannot be had (the origin failed, timed out or was too large), base64; processed as the URL asks, never stored.", \.fallbackImage.data, imgproxy: .same("FALLBACK_IMAGE_DATA")).changing(.nothingStored),
        .text("fallback-image-path", "The fallback image, a file read at start.", \.fallbackImage.path, imgproxy: .same("FALLBACK_IMAGE_PATH")).changing(.nothingStored),
        .text("fallback-image-url", "The fallback image, fetched once at start through the source guard.", \.fallbackImage.url, imgproxy: .same("FALLBACK_IMAGE_URL")).changing(.nothingStored),
        ServerSetting("fallback-image-http-code", .whole, "The status the fallback image is served with; 0 keeps the failure's (404, 502, 504 …).", imgproxy: .same("FALLBACK_IMAGE_HTTP_CODE"), show: { String($0.fallbackImage.httpCode) }) {
            configuration, value throws(SettingError.Reason) in
            guard case let .whole(code) = value, code == 0 || (100...599).contains(code) else { throw .outOfRange("0, or 100...599") }
            configuration.fallbackImage.httpCode = code
        }.changing(.nothingStored),
        .whole("fallback-image-ttl", "The fallback image's max-age, in seconds: short, so that caches in front fetch the image again soon; 0 follows --cache-control (imgproxy's default).", \.fallbackImage.ttl, in: 0...(10 * 365 * 86_400), imgproxy: .same("FALLBACK_IMAGE_TTL")).changing(.nothingStored),
    ]
}
