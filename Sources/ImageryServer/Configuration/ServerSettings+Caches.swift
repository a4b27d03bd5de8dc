extension ServerSettings {
    static let caches: [ServerSetting] = [
        .whole("response-cache-bytes", "Encoded responses kept in memory, in bytes.", \.responseCacheBytes, in: 0...(1 << 40)),
        .whole("image-cache-bytes", "Processed images kept decoded in memory, in bytes (one result in another format or quality costs no decode).", \.imageCacheBytes, in: 0...(1 << 40)),
        .text("cache-dir", "A directory for the disk tier of responses (default: off). Instances on one machine may share one.", \.cacheDirectory),
        .seconds("cache-lock-timeout", "Seconds a disk-cache read or write waits for another instance's lock on a shared --cache-dir before giving up.", \.cacheLockTimeout, in: 0.001...3600),
    ]
}
