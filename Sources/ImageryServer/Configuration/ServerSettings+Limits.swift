extension ServerSettings {
    static let limits: [ServerSetting] = [
        .whole("max-source-pixels", "The largest source accepted, in pixels.", \.maximumSourcePixels, in: 1...1_000_000_000_000, imgproxy: .converted("MAX_SRC_RESOLUTION", unit: "megapixels")).changing(.nothingStored),
        .whole("max-animation-frames", "The most frames of an animated source processed; later frames are dropped.", \.maximumAnimationFrames, in: 1...100_000, imgproxy: .same("MAX_ANIMATION_FRAMES", note: "default 1, a still")).changing(.bytes),
        .whole("max-animation-frame-pixels", "The largest animation frame, in pixels; 0 sums all frames' pixels against max-source-pixels.", \.maximumAnimationFramePixels, in: 0...1_000_000_000_000, imgproxy: .converted("MAX_ANIMATION_FRAME_RESOLUTION", unit: "megapixels")).changing(.nothingStored),
        .whole("concurrency", "Decodes and processing runs at once.", \.concurrentProcessing, in: 1...1024, imgproxy: .converted("WORKERS", note: "default 2 per core"), default: "the number of cores").changing(.nothingStored),
        .whole("concurrent-downloads", "Origin downloads at once.", \.concurrentDownloads, in: 1...4096, default: "4 per core, at least 8").changing(.nothingStored),
        .memory,
        .whole("max-decoding-pixels", "Pixels that decodes, processing runs and images being encoded may hold at once, across requests; more work queues. 0: an eighth of what --max-memory leaves for images, in bytes.", \.decodingPixelBudget, in: 0...1_000_000_000_000).changing(.nothingStored),
        .whole("draft-headroom", "How much larger than the output the codec decodes before the final resize: 1 for speed, 2 for finer detail.", \.draftHeadroom, in: 1...4).changing(.bytes),
        .whole("max-result-dimension", "The largest side of a result, in pixels: a larger result is scaled down to fit (0: no limit).", \.maximumResultDimension, in: 0...1_000_000, imgproxy: .same("MAX_RESULT_DIMENSION")).changing(.bytes),
        .whole("max-queue", "Image requests in flight (running or waiting) before new ones get 503.", \.maximumQueue, in: 1...1_000_000).changing(.nothingStored),
        .whole("requests-queue-size", "Image requests that may wait beyond the --concurrency being processed before new ones get 429, in place of --max-queue; 0 leaves the bound to --max-queue.", \.requestsQueueSize, in: 0...1_000_000, imgproxy: .converted("REQUESTS_QUEUE_SIZE", note: "0: no limit")).changing(.nothingStored),
    ]
}

extension ServerSetting {
    /// `--max-memory`: bytes, with an optional `KiB`, `MiB` or `GiB` suffix. Unset, it shows the
    /// default this machine gives and where it came from.
    static let memory = ServerSetting(
        "max-memory", .text,
        "The memory the whole server may use, in bytes (512MiB, 2GiB): work waits for room, and work that could never fit is refused.",
        default: "80% of the cgroup's limit, else 512MiB",
        show: { MemoryBudget.onThisMachine(setting: $0.maximumMemory).description }
    ) { configuration, value throws(SettingError.Reason) in
        guard case let .text(text) = value, let bytes = MemoryBudget.bytes(text) else {
            throw .invalid("expected bytes, with an optional KiB, MiB or GiB suffix (512MiB)")
        }
        guard bytes >= MemoryBudget.minimumBytes else { throw .invalid("below the \(MemoryBudget.minimumBytes >> 20)MiB the server needs to start") }
        configuration.maximumMemory = bytes
    }.changing(.nothingStored)
}
