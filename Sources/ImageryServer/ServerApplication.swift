import CoreMetrics
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
    let http: HTTPClientDataLoader
    /// Result storage's client, shut down after the drain.
    let bucket: S3ObjectClient?
    /// Writes of answered requests still under way (tests await them).
    let writes: BackgroundWrites
    let demoPage: String?
    /// Where the server listens, resolved once.
    let address: BindAddress
    let logger: Logger

    /// `metrics` is the registry `/metrics` renders, and `exportingMetrics` swift-otel's metrics
    /// factory (``Telemetry/metricsFactory``), which gets the same values. Bootstrap swift-metrics
    /// with ``ServerMetrics/metricsFactory(registry:namespace:exporting:)`` on both, before this,
    /// to include the pipeline's counters.
    ///
    /// `resolved` is `configuration` resolved (``ServerConfiguration/resolve()``), as
    /// ``ServerSettings/load(arguments:environment:)`` returns it; without it, the configuration
    /// is resolved here.
    package init(
        configuration: ServerConfiguration,
        resolved: ResolvedSettings? = nil,
        metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        exportingMetrics: (any MetricsFactory)? = nil,
        logger: Logger = Logger(label: "imagery.server")
    ) throws(ServerSetupError) {
        // Resolved once, so that the preflight and the settings digest read the same presets.
        let resolved = if let resolved { resolved } else { try configuration.resolve() }
        self.configuration = configuration
        self.logger = logger
        let preflight = try RequestPreflight(configuration: configuration, resolved: resolved)
        if configuration.fallbackImage.isConfigured, configuration.fallbackImage.image == nil {
            throw .setting("fallback-image-path", "the fallback image is read by loadImages() before the server is made")
        }
        self.address = try configuration.bindAddress()
        let room = try configuration.imageRoom(in: resolved.memory)
        let digest = ServerSettings.settingsDigest(of: configuration, resolved: resolved)
        let s3 = try configuration.s3()
        let serverMetrics = ServerMetrics(registry: metrics, namespace: configuration.prometheusNamespace, exporting: exportingMetrics)
        self.metrics = serverMetrics
        serverMetrics.memory(budget: resolved.memory.bytes, reserved: configuration.reservedMemory)
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
        let bucket = resultStorage.map {
            S3ObjectClient(configuration: $0.store, maximumObjectBytes: ResponseBucketTier.maximumObjectBytes, clock: configuration.deadlineClock)
        }
        self.bucket = bucket
        if let resultStorage, let bucket {
            shared.append(ResponseBucketTier(
                client: bucket, bucket: resultStorage.bucket, prefix: resultStorage.prefix,
                lookupTimeout: configuration.s3ResultStorageTimeout, writeTimeout: configuration.s3ResultStorageWriteTimeout,
                breaker: CircuitBreaker(), writes: writes, policy: configuration.headerPolicy, metrics: serverMetrics, logger: logger
            ))
        }
        let errors = ErrorReporting(configuration: configuration, logger: logger)
        var loading = configuration.loading
        loading.s3 = s3
        let http = HTTPClientDataLoader(configuration: loading)
        self.http = http
        self.pipeline = ImagePipeline(configuration: configuration.pipeline(loader: http, room: room, logger: logger))
        // One admission limit and one set of response tiers for images and /info answers alike.
        var tiers = ResponseTiers(
            memory: ResponseCache(budget: configuration.responseCacheBytes), shared: shared,
            admission: Admission(configuration: configuration, metrics: serverMetrics), metrics: serverMetrics,
            now: configuration.clock
        )
        tiers.namesTier = configuration.enableDebugHeaders
        var renderer = ImageRenderer(
            pipeline: pipeline, negotiation: configuration.negotiation, encoding: configuration.encoding,
            svg: configuration.svg, headers: configuration.headerPolicy, now: configuration.clock, logger: logger
        )
        renderer.encodes = { serverMetrics.imageEncoded(encodes: $0) }
        var images = ImageEndpoint(
            preflight: preflight,
            renderer: renderer,
            tiers: tiers,
            negotiation: configuration.negotiation,
            settings: digest, clientHints: configuration.enableClientHints,
            errors: errors, logger: logger
        )
        images.setsCanonicalHeader = configuration.setCanonicalHeader
        images.fallback = configuration.fallbackImage
        self.images = images
        self.info = InfoEndpoint(
            preflight: preflight, pipeline: pipeline, tiers: tiers,
            settings: digest, headers: configuration.headerPolicy, now: configuration.clock,
            errors: errors, logger: logger
        )
        if let root = configuration.demoRoot {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: root))?.filter { $0.hasSuffix(".jpg") }.sorted() ?? []
            self.demoPage = DemoPage(imageNames: names, signer: preflight.signer, pathPrefix: configuration.pathPrefix ?? "").html
        } else {
            self.demoPage = nil
        }
    }

    /// Serves until SIGTERM or SIGINT (or until the calling task is cancelled), then lets
    /// in-flight requests finish, for at most `--graceful-stop-timeout`. `onRunning` gets the
    /// bound port (useful with port 0; 0 on a Unix socket), and `onMetricsRunning` the port of
    /// `--prometheus-bind`'s listener. `handlesSignals: false` leaves the process's signals
    /// alone (servers inside tests). `telemetry` are the exporters' services
    /// (``Telemetry/services``).
    package func run(
        handlesSignals: Bool = true, telemetry: [any Service] = [], onRunning: @escaping @Sendable (Int) async -> Void = { _ in },
        onMetricsRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws {
        for warning in startWarnings { logger.warning("\(warning)") }
        let instance = InstanceName(configuration: configuration)
        let host = configuration.resolvedHost, socket = configuration.unixSocket
        let app = application(instance: instance, onServerRunning: { channel in
            let port = channel.localAddress?.port ?? 0
            instance.bound(socket.map { "unix:" + $0 } ?? "\(host):\(port)")
            await onRunning(port)
        })
        // Telemetry first: the group stops its services in reverse, so the exporters flush the
        // last requests' spans once the server has drained.
        var group = ServiceGroupConfiguration(
            services: telemetry.map { .init(service: $0) }
                + [.init(service: AnnouncedServer(server: app, gracefulStopTimeout: configuration.gracefulStopTimeout, logger: logger))],
            gracefulShutdownSignals: handlesSignals ? [.sigterm, .sigint] : [], logger: logger
        )
        group.maximumGracefulShutdownDuration = configuration.gracefulStopTimeout
        let metricsHost = configuration.prometheusBind?.host ?? "", metricsLogger = logger
        if let metrics = metricsApplication(onServerRunning: { port in
            metricsLogger.info("serving /metrics on \(HostAndPort(host: metricsHost, port: port)) (--prometheus-bind)")
            await onMetricsRunning(port)
        }) {
            group.services.append(.init(service: metrics))
        }
        defer {
            // As Go's listener does for imgproxy: a stopped server leaves no socket file behind.
            if let socket { try? FileManager.default.removeItem(atPath: socket) }
        }
        try await ServiceGroup(configuration: group).run()
    }

    /// What the start says about settings that lower a guard.
    var startWarnings: [String] {
        var warnings: [String] = []
        if configuration.keyHex == nil {
            warnings.append("no --key: URL signatures are not checked; anyone who can reach this server can use it")
        }
        if configuration.ignoreSSLVerification {
            warnings.append("--ignore-ssl-verification: origins' TLS certificates are NOT checked; anyone on the network path can answer for any https origin")
        }
        if configuration.allowPrivateSources {
            warnings.append("--allow-private-sources: URLs may make this server fetch from private networks (10/8, 172.16/12, 192.168/16, fc00::/7, 100.64/10)")
        }
        if configuration.allowLinkLocalSources {
            warnings.append("--allow-link-local-sources: URLs may make this server fetch from link-local addresses, where cloud metadata services answer with credentials")
        }
        return warnings
    }
}
