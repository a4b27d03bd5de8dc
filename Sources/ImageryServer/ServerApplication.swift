import Foundation
import Hummingbird
import Imagery
import ImageryCodecs
import ImageryDiskCache
import ImageryHTTPClient
import ImageryImgproxy
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `imagery-server`: an imgproxy-compatible image server on one ``ImagePipeline``.
///
/// Origins load through ``HTTPClientDataLoader`` with the SSRF guard on every connection;
/// decodes, processing runs and downloads are coalesced and limited by the pipeline. SIGTERM
/// and SIGINT stop it gracefully: in-flight requests finish, new connections are refused, the
/// background writes land, and the HTTP client closes.
package struct ServerApplication: Sendable {
    package let configuration: ServerConfiguration
    let pipeline: ImagePipeline
    let images: ImageEndpoint
    let info: InfoEndpoint
    let metrics: ServerMetrics
    private let http: HTTPClientDataLoader
    /// Result storage's client, shut down after the drain.
    private let bucket: S3ObjectClient?
    /// Writes of answered requests still under way (tests await them).
    let writes: BackgroundWrites
    private let demoPage: String?
    private let logger: Logger

    /// `metrics` is the registry `/metrics` renders; bootstrap swift-metrics with a
    /// `PrometheusMetricsFactory` on the same registry, before this, to include the pipeline's counters.
    package init(
        configuration: ServerConfiguration,
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        logger: Logger = Logger(label: "imagery.server")
    ) throws(ServerSetupError) {
        self.configuration = configuration
        self.logger = logger
        let preflight = try RequestPreflight(configuration: configuration)
        if configuration.fallbackImage.isConfigured, configuration.fallbackImage.image == nil {
            throw .setting("fallback-image-path", "the fallback image is read by loadImages() before the server is made")
        }
        let digest = ServerSettings.settingsDigest(of: configuration)
        _ = try configuration.s3()
        let serverMetrics = ServerMetrics(registry: metrics)
        self.metrics = serverMetrics
        let writes = BackgroundWrites()
        self.writes = writes
        var shared: [any ResponseStoring] = []
        if let directory = configuration.cacheDirectory {
            var options = DiskCache.Configuration()
            options.lockTimeout = configuration.cacheLockTimeout
            do {
                shared.append(ResponseDiskTier(
                    store: try DiskCache(directory: directory, configuration: options), writes: writes,
                    policy: configuration.headerPolicy, metrics: serverMetrics
                ))
            } catch {
                throw .cacheDirectory("\(error)")
            }
        }
        // The clients last: one released unused must be shut down, and a failed setup cannot.
        let resultStorage = try configuration.resultStorage()
        let bucket = resultStorage.map { S3ObjectClient(configuration: $0.store, maximumObjectBytes: ResponseBucketTier.maximumObjectBytes) }
        self.bucket = bucket
        if let resultStorage, let bucket {
            shared.append(ResponseBucketTier(
                client: bucket, bucket: resultStorage.bucket, prefix: resultStorage.prefix,
                lookupTimeout: configuration.s3ResultStorageTimeout, writeTimeout: configuration.s3ResultStorageWriteTimeout,
                breaker: CircuitBreaker(), writes: writes, policy: configuration.headerPolicy, metrics: serverMetrics, logger: logger
            ))
        }
        let http = HTTPClientDataLoader(configuration: configuration.loading)
        self.http = http
        self.pipeline = ImagePipeline(configuration: configuration.pipeline(loader: http, logger: logger))
        // One admission limit and one set of response tiers for images and /info answers alike.
        let tiers = ResponseTiers(
            memory: ResponseCache(budget: configuration.responseCacheBytes), shared: shared,
            admission: Admission(limit: configuration.maximumQueue, metrics: serverMetrics), metrics: serverMetrics,
            now: configuration.clock
        )
        var images = ImageEndpoint(
            preflight: preflight,
            renderer: ImageRenderer(
                pipeline: pipeline, negotiation: configuration.negotiation, avifSpeed: configuration.avifSpeed,
                headers: configuration.headerPolicy, now: configuration.clock, logger: logger
            ),
            tiers: tiers,
            negotiation: configuration.negotiation,
            settings: digest, clientHints: configuration.enableClientHints,
            errorCacheControl: configuration.errorCacheControl, logger: logger
        )
        images.setsCanonicalHeader = configuration.setCanonicalHeader
        images.fallback = configuration.fallbackImage
        self.images = images
        self.info = InfoEndpoint(
            preflight: preflight, pipeline: pipeline, tiers: tiers,
            settings: digest, headers: configuration.headerPolicy, now: configuration.clock,
            errorCacheControl: configuration.errorCacheControl, logger: logger
        )
        if let root = configuration.demoRoot {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root))?.filter { $0.hasSuffix(".jpg") }.sorted() ?? []
            self.demoPage = DemoPage(imageNames: names, signer: preflight.signer).html
        } else {
            self.demoPage = nil
        }
    }

    /// Serves until SIGTERM or SIGINT (or until the calling task is cancelled), then lets
    /// in-flight requests finish. `onRunning` gets the bound port (useful with port 0).
    /// `handlesSignals: false` leaves the process's signals alone (servers inside tests).
    package func run(handlesSignals: Bool = true, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        if configuration.keyHex == nil {
            logger.warning("no --key: URL signatures are not checked; anyone who can reach this server can use it")
        }
        let instance = InstanceName(configuration: configuration)
        let host = configuration.host
        let app = application(instance: instance, onServerRunning: { channel in
            let port = channel.localAddress?.port ?? 0
            instance.bound(host: host, port: port)
            await onRunning(port)
        })
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: AnnouncedServer(server: app, logger: logger))],
            gracefulShutdownSignals: handlesSignals ? [.sigterm, .sigint] : [], logger: logger
        ))
        try await group.run()
    }
}

extension ServerApplication {
    /// The HTTP server over this server's parts, with the drain among its services. Hummingbird
    /// stops its services in reverse order: the HTTP server first (its in-flight requests end),
    /// then the drain, which closes the HTTP client last. Tests drive it without a socket.
    func application(
        instance: InstanceName, onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = ServerRouter.make(ServerRouter.Parts(
            images: images, info: info, metrics: metrics, instance: instance, demoPage: demoPage,
            healthCheckPath: configuration.healthCheckPath, logger: logger
        ))
        let drain = ShutdownDrain(
            pipeline: pipeline, writes: writes, http: http, bucket: bucket,
            announces: configuration.cacheDirectory != nil || bucket != nil, logger: logger
        )
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "imagery-server"),
            services: [drain],
            onServerRunning: onServerRunning,
            logger: logger
        )
    }
}

/// Why the server could not start: said before it listens, with the setting to fix.
package enum ServerSetupError: Error, CustomStringConvertible {
    case invalidKey(String)
    case cacheDirectory(String)
    case presets(String)
    case presetsPath(String)
    case formatQuality(String)
    case watermark(String)
    case s3(String)
    /// Any other setting, by name (`url-replacements`), and why.
    case setting(String, String)

    /// The setting to fix, by name (`key`, `presets-path` …).
    package var setting: String {
        switch self {
        case .invalidKey: "key"
        case .cacheDirectory: "cache-dir"
        case .presets: "presets"
        case .presetsPath: "presets-path"
        case .formatQuality: "format-quality"
        case .watermark: "watermark-path"
        case .s3: "use-s3"
        case let .setting(name, _): name
        }
    }

    /// Why, without the setting's name.
    package var reason: String {
        switch self {
        case let .invalidKey(detail), let .cacheDirectory(detail), let .presets(detail), let .presetsPath(detail),
             let .formatQuality(detail), let .watermark(detail), let .s3(detail), let .setting(_, detail):
            detail
        }
    }

    package var description: String {
        switch self {
        case let .invalidKey(detail): "--key and --salt: \(detail)"
        case let .cacheDirectory(detail): "--cache-dir: \(detail)"
        case let .presets(detail), let .presetsPath(detail): "presets: \(detail)"
        case let .formatQuality(detail): "--format-quality: \(detail)"
        case let .watermark(detail): "watermark: \(detail)"
        case let .s3(detail): "s3: \(detail)"
        case let .setting(name, detail): "--\(name): \(detail)"
        }
    }
}
