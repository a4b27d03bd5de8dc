import Foundation
import Imagery
import ImageryCodecs
import ImageryHTTPClient
import ImageryImgproxy
import Logging

/// Everything `imagery-server` is started with, as typed values. The defaults are written here
/// and only here; ``ServerSettings`` reads flags, the environment and a file into it, and
/// shows these defaults in `--help`, `--print-config` and the docs.
package struct ServerConfiguration: Sendable {
    // MARK: Network

    /// The address to listen on. Default: 127.0.0.1, so a server started by hand is not on the
    /// network until asked.
    package var host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one. Default: 8080.
    package var port = 8080
    /// The `X-Imagery-Instance` header on every response. Default (`nil`): host:port as bound.
    package var instanceName: String?
    /// A second path that answers as `/health` does. Default: none.
    package var healthCheckPath: String?

    // MARK: Security

    /// imgproxy's keys, in hex, comma-separated for several. With none, signatures are not
    /// checked (the server warns at start), as in imgproxy.
    package var keyHex: String?
    /// The salts, one per key.
    package var saltHex: String?
    /// Bytes of the HMAC a signature keeps, 1–32. Default: 32.
    package var signatureSize = 32
    /// Signatures accepted without a check. Default: none.
    package var trustedSignatures: [String] = []
    /// Which sources may be fetched, and the SSRF guard's loopback switch.
    var sources = SourcePolicy()
    /// Source URL prefixes that may be fetched (`*` matches within a path segment); empty
    /// allows any. Default: empty.
    package var allowedSourcePrefixes: [String] {
        get { sources.allowedPrefixes }
        set { sources.allowedPrefixes = newValue }
    }
    /// Whether loopback origins may be fetched. Default: `false`.
    package var allowLoopbackSources: Bool {
        get { sources.allowLoopback }
        set { sources.allowLoopback = newValue }
    }
    /// With ``allowLoopbackSources``, the loopback addresses origins may be at; `nil` allows
    /// every one. Not a setting: for tests and embedders (see `SourcePolicy.loopbackAddresses`).
    /// Default: `nil`.
    package var loopbackSourceAddresses: Set<String>? {
        get { sources.loopbackAddresses }
        set { sources.loopbackAddresses = newValue }
    }
    /// How source hosts are resolved for the SSRF guard, which connects only to the addresses
    /// it checked. Not a setting: tests inject a resolver double here, so that no test asks
    /// real DNS. Default: ``SystemHostResolver``.
    package var hostResolver: any HostResolving {
        get { sources.resolver }
        set { sources.resolver = newValue }
    }
    /// The directory `local:///path` sources are read from. Default: none (off).
    package var localRoot: String? {
        get { sources.localRoot }
        set { sources.localRoot = newValue }
    }
    /// Whether `s3://bucket/key[?version]` sources are read. Default: `false`.
    package var useS3: Bool {
        get { sources.allowsS3 }
        set { sources.allowsS3 = newValue }
    }
    package var s3AllowedBuckets: [String] {
        get { sources.allowedBuckets }
        set { sources.allowedBuckets = newValue }
    }
    package var s3DeniedBuckets: [String] {
        get { sources.deniedBuckets }
        set { sources.deniedBuckets = newValue }
    }
    /// An S3-compatible store's endpoint; `nil` for AWS's in ``s3Region``.
    package var s3Endpoint: String?
    package var s3Region = "us-east-1"
    package var s3UsesPathStyle = true
    /// From `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`.
    package var s3Credentials: AWSCredentials?
    /// Whether to serve the embedded gallery and a page showing it at `/`. Default: `false`.
    package var demo = false
    /// With `--demo`: the gallery's folder, listed on a page at `/` whose URLs read its photos as
    /// `local://` sources (so it is the local root too). Default: none.
    package var demoRoot: String?

    // MARK: Sources

    /// The largest source accepted, in bytes. Default: 32 MiB.
    package var maximumSourceBytes = 32 << 20
    /// How long one origin download may take in all, redirects and retries included. Default: 20 s.
    package var upstreamTimeout: Duration = .seconds(20)
    /// Redirects followed for one source. Default: 5.
    package var maximumRedirects = 5
    /// The `User-Agent` sent to origins. Default: `imagery-server`.
    package var userAgent = "imagery-server"

    // MARK: Limits

    /// The largest source accepted, in pixels. Default: 50 MP (imgproxy's default too).
    package var maximumSourcePixels = 50_000_000
    /// The most frames of an animated source decoded; frames past it are dropped, as imgproxy
    /// drops them. Default: 256 (imgproxy's default is 1, a still).
    package var maximumAnimationFrames = 256
    /// The largest frame of an animation, in pixels; 0 (the default, as in imgproxy) sums every
    /// decoded frame's pixels against ``maximumSourcePixels`` instead.
    package var maximumAnimationFramePixels = 0
    /// Decodes and processing runs at once. Default: the number of cores.
    package var concurrentProcessing = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Origin downloads at once. Default: 4 per core, at least 8.
    package var concurrentDownloads = max(8, 4 * ProcessInfo.processInfo.activeProcessorCount)
    /// Pixels that running decodes may hold at once, across requests: further decodes queue.
    /// Default: 64 MP, 256 MB of RGBA.
    package var decodingPixelBudget = 64_000_000
    /// How much larger than the output the codec decodes before the final Lanczos resize
    /// (``ImagePipeline/Configuration/draftHeadroom``). Default: 1, not the library's 2: at
    /// JPEG q80 the encoder's loss hides the finer resize (Benchmarks/README.md has the figures).
    package var draftHeadroom = 1
    /// Image requests in flight (running or queued) before new ones get 503. Default: 256. A
    /// waiting request holds no source: downloads wait while fetched sources wait for a decode.
    package var maximumQueue = 256

    /// Seconds since 1970, for URLs that expire (`expires`/`exp`): the system clock, or a
    /// test's own.
    package var clock: @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }

    /// The animation limits requests are decoded under. Animations are streamed: the renderer
    /// encodes each frame as it is decoded and processed, so a response holds one frame.
    var animationLimits: AnimationLimits {
        AnimationLimits(
            maximumFrameCount: maximumAnimationFrames,
            maximumFramePixelCount: maximumAnimationFramePixels > 0 ? maximumAnimationFramePixels : nil,
            delivery: .stream
        )
    }

    // MARK: Responses

    /// JPEG and WebP quality when the URL gives none. Default: 80.
    package var defaultQuality = 80
    package var enableClientHints = false
    /// How `Accept` chooses the format (`--auto-avif`, `--auto-webp`, `--enforce-avif`, `--enforce-webp`).
    package var negotiation = FormatNegotiation(writable: ImageEncoder.supportedFormats)
    /// aom's speed for AVIF responses (`--avif-speed`).
    package var avifSpeed = 9
    /// `Cache-Control` of successful responses. Default: a year, immutable: a URL names its
    /// options and source, so its bytes never change.
    package var cacheControl = "public, max-age=31536000, immutable"
    /// `Cache-Control` of error responses: short, so a fixed origin is seen soon. Default: 10 s.
    package var errorCacheControl = "public, max-age=10"

    // MARK: Processing

    /// `--presets`: imgproxy presets, `name=option/option`, comma-separated.
    package var presets: String?
    /// `--presets-path`: a file of presets, one per line.
    package var presetsPath: String?
    package var onlyPresets = false
    /// Option names URLs may use; empty allows all.
    package var allowedProcessingOptions: [String] = []
    package var allowSecurityOptions = false
    /// `format=quality` pairs, over ``defaultQuality``.
    package var formatQuality: [String] = []
    package var watermarkPath: String?
    package var watermarkURL: String?
    /// Base64 of the watermark image.
    package var watermarkData: String?
    package var watermarkOpacity = 1.0
    /// The watermark image, once read from one of the three sources (see `loadImages()`).
    package var watermark: ImgproxyPlan.Watermark?
    /// Every setting parsed and checked once (see ``resolve()``); `nil` until then.
    package internal(set) var resolved: ResolvedSettings?

    // MARK: Caches

    /// Encoded responses kept in memory, in bytes. Default: 32 MiB, about 800 JPEGs of 512 px:
    /// one instance's hot set, with a CDN or an edge cache in front for the rest.
    package var responseCacheBytes = 32 << 20
    /// Processed images kept decoded in the pipeline's memory cache, in bytes: they spare the
    /// work when one result is asked for in another format or quality. Default: 16 MiB.
    package var imageCacheBytes = 16 << 20
    /// A directory for the disk tier of responses; `nil` keeps it off. Instances on one machine
    /// may share one. Default: none.
    package var cacheDirectory: String?
    /// How long a disk-cache read or write waits for another instance's lock on a shared
    /// `cacheDirectory` before it gives up (a miss, or an entry not stored). Default: 10 s.
    package var cacheLockTimeout: Duration = .seconds(10)
    /// `bucket` or `bucket/prefix`: result storage, responses shared through an S3-compatible
    /// bucket (on ``s3Endpoint``, signed with ``s3Credentials``) by instances on any machine;
    /// `nil` keeps it off. Default: none.
    package var s3ResultStorage: String?
    /// How long a result-storage lookup may take before the request is processed instead: a
    /// store's round trip, not its worst case. Default: 0.5 s.
    package var s3ResultStorageTimeout: Duration = .milliseconds(500)
    /// How long a result-storage write may take; writes run after their response is sent, and
    /// a graceful shutdown waits for them. Default: 10 s.
    package var s3ResultStorageWriteTimeout: Duration = .seconds(10)

    // MARK: Logging

    /// The lowest level logged. Each request logs one line at `debug`. Default: `info`.
    package var logLevel = Logger.Level.info

    package init() {}
}
