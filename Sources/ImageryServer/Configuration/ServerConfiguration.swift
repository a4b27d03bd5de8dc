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
    /// What the server listens on: TCP for ``host`` (`tcp4` and `tcp6` hold it to one address
    /// family), or the Unix socket ``unixSocket``. Default: `tcp`.
    package var network = ListenNetwork.tcp
    /// A Unix domain socket to listen on instead of ``host`` and ``port``. Default: none.
    package var unixSocket: String?
    /// A path every route sits under, `/health` and `/metrics` included (imgproxy's
    /// `IMGPROXY_PATH_PREFIX`). Default: none.
    package var pathPrefix: String?
    /// Connections served at once; past it, new ones wait in the listen backlog until one
    /// closes, as imgproxy's limited listener makes them. 0: no limit. Default: 2048 (imgproxy's).
    package var maximumClients = 2048

    // MARK: Timeouts

    /// How long one image or `/info` request may take in all, queue and download included,
    /// before it is answered 503. Default: 30 s, the upstream timeout's 20 s and processing,
    /// and nginx's `proxy_read_timeout` in `deploy/nginx`.
    package var requestTimeout: Duration = .seconds(30)
    /// How long a connection may take to send a request, body included, from its first byte
    /// on a new connection or from its head on a kept-alive one. Default: 10 s (imgproxy's).
    package var readRequestTimeout: Duration = .seconds(10)
    /// How long writing one response may take before the connection is closed. Default: 10 s
    /// (imgproxy's).
    package var writeResponseTimeout: Duration = .seconds(10)
    /// How long an idle kept-alive connection stays open; zero turns keep-alive off. Default:
    /// 75 s, above the 60 s after which `deploy/nginx` closes its idle upstream connections, so
    /// the proxy never sends a request on a connection the server is closing.
    package var keepAliveTimeout: Duration = .seconds(75)
    /// How long a graceful stop waits for in-flight requests before cancelling them. Default:
    /// 25 s, under the 30 s an orchestrator (Kubernetes) allows before it kills the process.
    package var gracefulStopTimeout: Duration = .seconds(25)

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
    /// Whether private (RFC 1918, unique local) and shared (CGNAT) origins may be fetched.
    /// Default: `false` (imgproxy's is `true`).
    package var allowPrivateSources: Bool {
        get { sources.allowPrivate }
        set { sources.allowPrivate = newValue }
    }
    /// Whether link-local origins (169.254/16, fe80::/10, where cloud metadata services live)
    /// may be fetched. Default: `false`.
    package var allowLinkLocalSources: Bool {
        get { sources.allowLinkLocal }
        set { sources.allowLinkLocal = newValue }
    }
    /// `Authorization: Bearer <secret>` every request but the health checks must carry.
    /// Default: none.
    package var secret: String?
    /// The origin CORS answers allow (`Access-Control-Allow-Origin`); `nil` leaves CORS off.
    package var allowOrigin: String?
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
    /// The clock `requestTimeout` and result storage's deadlines are measured on. Not a
    /// setting: a test injects a manual clock, so that a limit passes only once the request is
    /// where the test wants it, however loaded the machine. Default: `ContinuousClock`.
    package var deadlineClock: any Clock<Duration> = ContinuousClock()
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
    /// An IAM role whose temporary credentials sign every S3 request in place of
    /// ``s3Credentials``, which only assume it. Default: none.
    package var s3AssumeRoleARN: String?
    /// What the role's trust policy requires as `sts:ExternalId`. Default: none.
    package var s3AssumeRoleExternalID: String?
    /// `name=arn;…`: source names read through S3 access points. Default: none.
    package var s3AccessPoints: String?
    /// Whether `s3://` sources the AWS S3 Encryption Client wrote (v2, KMS with context) are
    /// decrypted, their data keys through KMS; off, they arrive as ciphertext, which no decoder
    /// reads. Default: `false`, as imgproxy's.
    package var s3UsesDecryptionClient = false
    /// The environment's `AWS_ENDPOINT_URL*` variables, where STS is found as AWS's SDKs find
    /// it. Not a setting: the standard variables are read once at start.
    package var awsEndpointVariables: [String: String] = [:]
    /// The role of ``s3AssumeRoleARN``, once ``assumeS3Role()`` has assumed it; shared by every
    /// S3 client, so that they renew it once between them.
    package var s3AssumedRole: AWSAssumedRoleCredentials?
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
    /// How a URL's source is read: base URL, replacements, file names, `/enc/` sources.
    package var sourceURLs = SourceURLs()
    /// Which sources get a client's cookies. Default: none.
    package var cookiePassthrough = CookiePassthrough()
    /// What separates a `local://` or `s3://` source's path from its query; empty turns it
    /// off. Default: `?`.
    package var sourceURLQuerySeparator: String {
        get { sources.querySeparator }
        set { sources.querySeparator = newValue }
    }
    /// How long an idle connection to an origin is kept for the next download; zero opens a
    /// connection per download. Default: 90 s (imgproxy's).
    package var clientKeepAliveTimeout: Duration = .seconds(90)
    /// Whether origins' TLS certificates go unchecked. Default: `false`; `true` is logged as a
    /// warning at every start.
    package var ignoreSSLVerification = false

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
    /// The memory the whole process may use, in bytes (`--max-memory`); `nil` for the default:
    /// 80% of the control group's limit, or 512 MiB without one (``MemoryBudget``).
    package var maximumMemory: Int?
    /// What the process holds before its first request, set aside from ``maximumMemory``: the
    /// executable measures its own once it has started (``ResidentMemory``); a configuration
    /// made in code, whose process is not only a server, assumes 64 MiB.
    package var processMemory = 64 << 20
    /// Pixels that decodes, processing runs and images being encoded may hold at once, across
    /// requests: further work queues. Default: 0, derived from the memory budget
    /// (``MemoryBudget/pixelLimit(room:)``).
    package var decodingPixelBudget = 0
    /// How much larger than the output the codec decodes before the final Lanczos resize
    /// (``ImagePipeline/Configuration/draftHeadroom``). Default: 1, not the library's 2: at
    /// JPEG q80 the encoder's loss hides the finer resize (Benchmarks/README.md has the figures).
    package var draftHeadroom = 1
    /// The largest side of a result: a larger one is scaled down to fit, as imgproxy's
    /// `IMGPROXY_MAX_RESULT_DIMENSION` does. Default: 0, no limit.
    package var maximumResultDimension = 0
    /// Image requests in flight (running or queued) before new ones get 503. Default: 256. A
    /// waiting request holds no source: downloads wait while fetched sources wait for a decode.
    package var maximumQueue = 256
    /// Image requests that may wait beyond the ``concurrentProcessing`` ones being worked on
    /// before new ones get 429 (imgproxy's `IMGPROXY_REQUESTS_QUEUE_SIZE`); 0 (the default)
    /// leaves the bound to ``maximumQueue``.
    package var requestsQueueSize = 0

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
    /// How responses' encoders are tuned (`--avif-speed`, `--jpeg-progressive`,
    /// `--png-interlaced`, `--webp-effort`, `--webp-preset`).
    var encoding = EncoderSettings()
    /// What SVG sources are answered with (`--always-rasterize-svg`, `--sanitize-svg`,
    /// `--svg-unlimited`).
    var svg = SVGSettings()
    /// Whether responses are attachments by default (`Content-Disposition: attachment`); a URL's
    /// `return_attachment` says otherwise. Default: `false`, `inline`.
    package var returnAttachment = false
    /// `Cache-Control` of successful responses. Default: a year, immutable: a URL names its
    /// options and source, so its bytes never change.
    package var cacheControl = "public, max-age=31536000, immutable"
    /// `Cache-Control` of error responses; `nil` for none, as imgproxy 4 sends none. An error
    /// made with a client's cookies is `private, no-store` whatever this says. Default: none.
    package var errorCacheControl: String?
    /// Whether answers carry an `ETag` and `If-None-Match` is answered. Default: `true`.
    package var useETag = true
    /// Mixed into every ETag, so that changing it changes them all. Default: none.
    package var etagBuster: String?
    /// Whether answers carry the source's `Last-Modified` and `If-Modified-Since` is
    /// answered. Default: `true`.
    package var useLastModified = true
    /// An RFC 3339 time no `Last-Modified` is earlier than. Default: none.
    package var lastModifiedBuster: String?
    /// Whether the source's `Cache-Control` (or `Expires`) replaces ours. Default: `false`.
    package var cacheControlPassthrough = false
    /// Whether image answers carry debug headers: the source's bytes and size, the result's
    /// size, and the quality it was encoded at. Default: `false`.
    package var enableDebugHeaders = false
    /// Whether image answers carry `Link: <source>; rel="canonical"` for http(s) sources.
    /// Default: `false`.
    package var setCanonicalHeader = false
    /// What is served when a source cannot be had. Default: nothing (the error).
    package var fallbackImage = FallbackImageSettings()

    // MARK: Processing

    /// `--presets`: imgproxy presets, `name=option/option`, comma-separated.
    package var presets: String?
    /// `--presets-path`: a file of presets, one per line.
    package var presetsPath: String?
    package var onlyPresets = false
    /// What separates presets in `--presets` (a presets file has one a line). Default: `,`.
    package var presetsSeparator = ","
    /// What separates an option's name from its arguments in URLs and presets. Default: `:`.
    package var argumentsSeparator: Character = ":"
    /// Whether `/info` URLs name presets only; `nil` follows ``onlyPresets``, as imgproxy's
    /// `IMGPROXY_INFO_ONLY_PRESETS` does. Default: `nil`.
    package var infoOnlyPresets: Bool?
    /// `/info` option names URLs may use; empty allows all. Default: empty.
    package var allowedInfoOptions: [String] = []
    /// `--info-presets`: presets of `/info` options, `name=option/option`.
    package var infoPresets: String?
    /// `--info-presets-path`: a file of `/info` presets, one per line.
    package var infoPresetsPath: String?
    /// Whether EXIF orientation is applied by default; a URL's `auto_rotate` says otherwise.
    /// Default: `true`.
    package var autoRotate = true
    /// `--strip-metadata`, `--keep-copyright`, `--strip-color-profile` (imgproxy's
    /// `IMGPROXY_STRIP_METADATA`, `_KEEP_COPYRIGHT`, `_STRIP_COLOR_PROFILE`): what of a
    /// source's metadata answers keep where the URL does not say (``ImgproxyMetadata``).
    package var stripMetadata = true
    /// `--use-linear-colorspace` (imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE`): resizes filter
    /// colour in linear light.
    package var useLinearColorspace = false
    package var keepCopyright = true
    package var stripColorProfile = true
    /// Whether a HEIC's embedded thumbnail is decoded whenever it has one; a URL's
    /// `enforce_thumbnail` says otherwise. Default: `false`.
    package var enforceThumbnail = false
    /// Whether every image is decoded at full size before resizing (no DCT scaling, no box
    /// reduction while decoding, no HEIC thumbnails). Default: `false`.
    package var disableShrinkOnLoad = false
    /// Source formats served as they are when a URL asks for no other. Default: none.
    package var skipProcessingFormats: [ImageFormat] = []
    /// Option names URLs may use; empty allows all.
    package var allowedProcessingOptions: [String] = []
    package var allowSecurityOptions = false
    /// `format=quality` pairs, over ``defaultQuality``.
    package var formatQuality: [String] = []
    /// `--autoquality-method`: how every image's quality is chosen when its URL has no `aq`;
    /// `none` keeps the fixed quality.
    package var autoQualityMethod = ImgproxyAutoQuality.Method.none
    /// `--autoquality-target`: DSSIM for `dssim` and `ml`, bytes for `size`.
    package var autoQualityTarget = 0.02
    package var autoQualityMinimum = 70
    package var autoQualityMaximum = 80
    /// `format=quality` pairs over ``autoQualityMinimum`` and ``autoQualityMaximum``.
    package var autoQualityFormatMinimum = ["avif=60"]
    package var autoQualityFormatMaximum = ["avif=65"]
    package var autoQualityAllowedError = 0.002
    /// Megapixels above which autoquality is skipped; 0 for none.
    package var autoQualityMaximumResolution = 0.0
    package var watermarkPath: String?
    package var watermarkURL: String?
    /// Base64 of the watermark image.
    package var watermarkData: String?
    package var watermarkOpacity = 1.0
    /// The watermark image, once read from one of the three sources (see `loadImages()`).
    package var watermark: ImgproxyPlan.Watermark?

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
    /// How log lines are written (``LogFormat``). Default: `pretty`, as in imgproxy.
    package var logFormat = LogFormat.pretty
    /// Put before every `/metrics` series' name, with `_` (`edge` makes
    /// `edge_imagery_downloads_total`). Default: none.
    package var prometheusNamespace = ""
    /// Where `/metrics` is served instead of the server's own address, as imgproxy's
    /// `IMGPROXY_PROMETHEUS_BIND` does: a port an operator keeps off the public network.
    /// Default: none (`/metrics` beside the images).
    package var prometheusBind: HostAndPort?
    /// Traces over OTLP: imgproxy's `OPEN_TELEMETRY_*` and OpenTelemetry's `OTEL_*`.
    package var telemetry = TelemetryConfiguration()
    /// Whether a source that fails to download is logged at `warning` (with its host) rather
    /// than `debug`. Default: `true`, as in imgproxy.
    package var reportDownloadingErrors = true
    /// Whether error bodies carry what the log says (the loader's or codec's detail) beside
    /// their one line. Default: `false`: the detail names origins and is for operators.
    package var developmentErrorsMode = false

    package init() {}
}
