import Foundation

extension ServerSettings {
    static let caches: [ServerSetting] = [
        .whole("response-cache-bytes", "Encoded responses kept in memory, in bytes.", \.responseCacheBytes, in: 0...(1 << 40)).changing(.nothingStored),
        .whole("image-cache-bytes", "Processed images kept decoded in memory, in bytes (one result in another format or quality costs no decode).", \.imageCacheBytes, in: 0...(1 << 40)).changing(.nothingStored),
        .text("cache-dir", "A directory for the disk tier of responses (default: off). Instances on one machine may share one.", \.cacheDirectory).changing(.nothingStored),
        .text("s3-result-storage", "bucket[/prefix]: result storage, processed responses shared through an S3-compatible bucket by every instance on every machine, on the --s3-endpoint and AWS_* credentials (default: off).", \.s3ResultStorage) { value in
            ServerConfiguration.resultStorageParts(value) == nil ? "must be bucket or bucket/prefix, with a bucket name S3 allows (3-63 of a-z, 0-9, . and -) and no . or .. segment in the prefix" : nil
        }.changing(.nothingStored),
        .seconds("s3-result-storage-timeout", "Seconds a result-storage lookup may take before the request is processed instead.", \.s3ResultStorageTimeout, in: 0.001...60).changing(.nothingStored),
        .seconds("s3-result-storage-write-timeout", "Seconds a result-storage write may take (in the background; a graceful shutdown waits at most this long for one).", \.s3ResultStorageWriteTimeout, in: 0.1...600).changing(.nothingStored),
        .seconds("cache-lock-timeout", "Seconds a disk-cache read or write waits for another instance's lock on a shared --cache-dir before giving up.", \.cacheLockTimeout, in: 0.001...3600).changing(.nothingStored),
    ]
}
