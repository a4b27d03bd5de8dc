extension ServerSettings {
    static let limits: [ServerSetting] = [
        .whole("max-source-pixels", "The largest source accepted, in pixels.", \.maximumSourcePixels, in: 1...1_000_000_000_000, imgproxy: "IMGPROXY_MAX_SRC_RESOLUTION, in megapixels"),
        .whole("max-animation-frames", "The most frames of an animated source processed; later frames are dropped.", \.maximumAnimationFrames, in: 1...100_000, imgproxy: "IMGPROXY_MAX_ANIMATION_FRAMES (default 1, a still)"),
        .whole("max-animation-frame-pixels", "The largest animation frame, in pixels; 0 sums all frames' pixels against max-source-pixels.", \.maximumAnimationFramePixels, in: 0...1_000_000_000_000, imgproxy: "IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION, in megapixels"),
        .whole("concurrency", "Decodes and processing runs at once.", \.concurrentProcessing, in: 1...1024, imgproxy: "IMGPROXY_WORKERS (default 2 per core)", default: "the number of cores"),
        .whole("concurrent-downloads", "Origin downloads at once.", \.concurrentDownloads, in: 1...4096, default: "4 per core, at least 8"),
        .whole("max-decoding-pixels", "Pixels that decodes, processing runs and images being encoded may hold at once, across requests; more work queues.", \.decodingPixelBudget, in: 1...1_000_000_000_000),
        .whole("draft-headroom", "How much larger than the output the codec decodes before the final resize: 1 for speed, 2 for finer detail.", \.draftHeadroom, in: 1...4),
        .whole("max-queue", "Image requests in flight (running or waiting) before new ones get 503.", \.maximumQueue, in: 1...1_000_000),
        .seconds("processing-timeout", "Seconds a request may take to get its image (download, decode and processing, waits included) before it gets 503; its encode is not cut short.", \.processingTimeout, in: 0.1...3600, imgproxy: "IMGPROXY_TIMEOUT (default 10 s, encoding included)"),
    ]
}
