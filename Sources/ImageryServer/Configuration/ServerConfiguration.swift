import Foundation
import Logging

/// Everything `imagery-server` is started with. Every limit has a safe default; the
/// executable's flags set them.
package struct ServerConfiguration: Sendable {
    // MARK: Network

    /// Default: 127.0.0.1, so a server started by hand is not on the network until asked.
    package var host = "127.0.0.1"
    /// Default: 8080. 0 picks a free port (the tests).
    package var port = 8080
    /// The value of the `X-Imagery-Instance` header on every response, so operators and tests
    /// behind a load balancer see which instance answered. Default (`nil`): host:port as bound.
    package var instanceName: String?

    // MARK: Security

    /// imgproxy's key and salt, in hex. With no key, signatures are not checked (the server
    /// warns at start), as in imgproxy.
    package var keyHex: String?
    package var saltHex: String?
    /// Bytes of the HMAC a signature keeps, 1–32, as imgproxy's `IMGPROXY_SIGNATURE_SIZE`. Default: 32.
    package var signatureSize = 32
    /// Which sources may be fetched, and the SSRF guard's loopback switch.
    var sources = SourcePolicy()
    package var allowedSourcePrefixes: [String] {
        get { sources.allowedPrefixes }
        set { sources.allowedPrefixes = newValue }
    }
    package var allowLoopbackSources: Bool {
        get { sources.allowLoopback }
        set { sources.allowLoopback = newValue }
    }
    package var localRoot: String? {
        get { sources.localRoot }
        set { sources.localRoot = newValue }
    }

    // MARK: Limits

    /// The largest source accepted, in bytes. Default: 32 MiB.
    package var maximumSourceBytes = 32 << 20
    /// The largest source accepted, in pixels. Default: 50 MP (imgproxy's default too).
    package var maximumSourcePixels = 50_000_000
    /// How long one origin download may take in all, redirects included. Default: 20 s.
    package var upstreamTimeout: Duration = .seconds(20)
    /// Decodes and processing runs at once. Default: the number of cores.
    package var concurrentProcessing = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Origin downloads at once. Default: 4 per core, at least 8.
    package var concurrentDownloads = max(8, 4 * ProcessInfo.processInfo.activeProcessorCount)
    /// Pixels that running decodes may hold at once, across requests: further decodes queue.
    /// Default: 64 MP, 256 MB of RGBA. A decode is charged the size its codec decodes to (a
    /// 24 MP JPEG for a 512 px result, with 1× drafts: about 0.4 MP); one over the budget runs alone.
    package var decodingPixelBudget = 64_000_000
    /// How much larger than the output the codec decodes before the final Lanczos resize
    /// (``ImagePipeline/Configuration/draftHeadroom``). Default: 1, not the library's 2, chosen
    /// on the benchmark's figures (README, "Image server"): at JPEG q80 the encoder's loss hides
    /// the finer resize (0.4 dB), and the throughput is 1.4× higher.
    package var draftHeadroom = 1
    /// Image requests in flight (running or queued) before new ones get 503. Default: 256.
    package var maximumQueue = 256

    // MARK: Responses

    /// JPEG and WebP quality when the URL gives none. Default: 80.
    package var defaultQuality = 80
    /// `Cache-Control` of successful responses. Default: a year, immutable: a URL names
    /// its options and source, so its bytes never change.
    package var cacheControl = "public, max-age=31536000, immutable"
    /// `Cache-Control` of error responses: short, so a fixed origin is seen soon. Default: 10 s.
    package var errorCacheControl = "public, max-age=10"
    /// A directory for the pipeline's disk cache; `nil` keeps it off.
    package var cacheDirectory: String?
    /// How long a disk-cache read or write waits for another instance's write lock on a
    /// shared `cacheDirectory` before it gives up (a miss, or an entry not stored). Default: 10 s.
    package var cacheLockTimeout: Duration = .seconds(10)
    /// Encoded responses kept in memory, in bytes. Default: 32 MiB, about 800 JPEGs of
    /// 512 px: one instance's hot set, with a CDN or an edge cache in front for the rest. (Larger
    /// caches cost more resident memory than the benchmark's 300 MB target allows.)
    package var responseCacheBytes = 32 << 20
    /// Processed images kept decoded in the pipeline's memory cache, in bytes: they spare the
    /// work when one result is asked for in another format or quality. Default: 16 MiB. (The
    /// library's default, 15% of RAM up to 1 GiB, suits an app, not a server whose answers
    /// are already in the response cache.)
    package var imageCacheBytes = 16 << 20
    /// With `--demo`: the gallery's folder. Its photos are listed on a page at `/`, whose
    /// URLs read them as `local://` sources, so the local root must be this folder too.
    package var demoRoot: String?
    /// The level of the one line each request logs. Default: `debug`.
    package var requestLogLevel = Logger.Level.debug

    package init() {}
}
