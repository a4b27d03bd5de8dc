import ArgumentParser
import Configuration
import ImageryGallery
import ImageryServer
import Logging
import Metrics
import Prometheus

/// `imagery-server`: flags first, then the environment (`IMAGERY_KEY` …), then the defaults.
@main
struct ServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagery-server",
        abstract: "An imgproxy-compatible image server on Imagery's pipeline.",
        discussion: """
            URLs follow imgproxy's format: /{signature}/{options}/{base64url source}[.ext] or \
            /{signature}/{options}/plain/{percent-encoded source}[@ext]. Without --key (or \
            IMAGERY_KEY) signatures are not checked.
            """
    )

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on (0 picks a free one).")
    var port = 8080

    @Option(name: .customLong("instance-name"), help: "The X-Imagery-Instance header on every response, to tell instances apart behind a load balancer (default: host:port).")
    var instanceName: String?

    @Option(name: .customLong("cache-dir"), help: "A directory for the disk cache (default: off). Instances on one host may share one.")
    var cacheDirectory: String?

    @Option(name: .customLong("cache-lock-timeout"), help: "Seconds a disk-cache read or write waits for another instance's lock on a shared --cache-dir before giving up.")
    var cacheLockTimeout = 10

    @Option(help: "imgproxy signing key, hex (env IMAGERY_KEY).")
    var key: String?

    @Option(help: "imgproxy signing salt, hex (env IMAGERY_SALT).")
    var salt: String?

    @Option(name: .customLong("allowed-sources"), help: "Comma-separated source URL prefixes that may be fetched (env IMAGERY_ALLOWED_SOURCES; default: any).")
    var allowedSources: String?

    @Flag(name: .customLong("allow-loopback-sources"), help: "Fetch loopback origins too, for local use and tests (env IMAGERY_ALLOW_LOOPBACK_SOURCES=1).")
    var allowLoopbackSources = false

    @Option(name: .customLong("local-root"), help: "The directory local:///path sources are read from (env IMAGERY_LOCAL_ROOT; default: off).")
    var localRoot: String?

    @Option(name: .customLong("max-source-bytes"), help: "The largest source accepted, in bytes.")
    var maximumSourceBytes = 32 << 20

    @Option(name: .customLong("max-source-pixels"), help: "The largest source accepted, in pixels.")
    var maximumSourcePixels = 50_000_000

    @Option(name: .customLong("upstream-timeout"), help: "Seconds one origin download may take in all.")
    var upstreamTimeout = 20

    @Option(name: .customLong("concurrency"), help: "Decodes and processing runs at once (default: the number of cores).")
    var concurrency: Int?

    @Option(name: .customLong("max-decoding-pixels"), help: "Pixels that running decodes may hold at once, across requests; more decodes queue.")
    var maximumDecodingPixels = 64_000_000

    @Option(name: .customLong("draft-headroom"), help: "How much larger than the output the codec decodes before the final resize: 1 for speed (the default), 2 for finer detail.")
    var draftHeadroom = 1

    @Option(name: .customLong("max-queue"), help: "Image requests in flight before new ones get 503.")
    var maximumQueue = 256

    @Option(help: "JPEG and WebP quality when a URL gives none.")
    var quality = 80

    @Flag(help: "Serve the embedded gallery as local:// sources, and a page showing it at / (replaces --local-root).")
    var demo = false

    func validate() throws {
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1 to 100") }
        guard maximumSourceBytes > 0, maximumSourcePixels > 0, maximumDecodingPixels > 0, upstreamTimeout > 0, cacheLockTimeout > 0, maximumQueue > 0 else {
            throw ValidationError("limits must be positive")
        }
        guard (1...4).contains(draftHeadroom) else { throw ValidationError("--draft-headroom must be 1 to 4") }
        if let concurrency, concurrency <= 0 { throw ValidationError("--concurrency must be positive") }
        if let instanceName, instanceName.isEmpty || instanceName.count > 128 || !instanceName.allSatisfy({ (33...126).contains($0.asciiValue ?? 0) }) {
            throw ValidationError("--instance-name must be 1 to 128 visible ASCII characters (it is an HTTP header value)")
        }
        if demo, localRoot != nil { throw ValidationError("--demo serves the embedded gallery as its local root; drop --local-root") }
    }

    func run() async throws {
        let environment = ConfigReader(provider: EnvironmentVariablesProvider(
            secretsSpecifier: .specific(["IMAGERY_KEY", "IMAGERY_SALT"])
        ))
        var configuration = ServerConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.instanceName = instanceName
        configuration.cacheDirectory = cacheDirectory
        configuration.cacheLockTimeout = .seconds(cacheLockTimeout)
        configuration.keyHex = key ?? environment.string(forKey: "imagery.key", isSecret: true)
        configuration.saltHex = salt ?? environment.string(forKey: "imagery.salt", isSecret: true)
        let prefixes = allowedSources ?? environment.string(forKey: "imagery.allowedSources")
        configuration.allowedSourcePrefixes = prefixes.map { $0.split(separator: ",").map(String.init) } ?? []
        configuration.allowLoopbackSources = allowLoopbackSources || environment.bool(forKey: "imagery.allowLoopbackSources", default: false)
        configuration.localRoot = localRoot ?? environment.string(forKey: "imagery.localRoot")
        configuration.maximumSourceBytes = maximumSourceBytes
        configuration.maximumSourcePixels = maximumSourcePixels
        configuration.upstreamTimeout = .seconds(upstreamTimeout)
        if let concurrency { configuration.concurrentProcessing = concurrency }
        configuration.maximumQueue = maximumQueue
        configuration.decodingPixelBudget = maximumDecodingPixels
        configuration.draftHeadroom = draftHeadroom
        configuration.defaultQuality = quality
        if demo {
            guard let gallery = Gallery.path else { throw ValidationError("this build lacks the embedded gallery") }
            configuration.demoRoot = gallery
            configuration.localRoot = gallery
        }

        var logger = Logger(label: "imagery.server")
        logger.logLevel = .info
        // Before the pipeline exists: its counters are made when it is.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        let server: ServerApplication
        do {
            server = try ServerApplication(configuration: configuration, metrics: registry, logger: logger)
        } catch {
            throw ValidationError(error.description)
        }
        let announce = logger, host = configuration.host, demo = demo
        try await server.run { port in
            announce.info("listening", metadata: ["address": "http://\(host):\(port)"])
            if demo { announce.info("demo page", metadata: ["address": "http://\(host):\(port)/"]) }
        }
    }
}
