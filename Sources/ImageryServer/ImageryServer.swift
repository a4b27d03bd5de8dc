import Hummingbird
import Imagery
import ImageryCodecs
import ImageryDiskCache
import ImageryHTTPClient
import Logging
import Prometheus
import ServiceLifecycle
import UnixSignals

/// `imagery-server`: an imgproxy-compatible image server on one ``ImagePipeline``.
///
/// Origins load through ``HTTPClientDataLoader`` with the SSRF guard on every hop; decodes,
/// processing runs and downloads are coalesced and limited by the pipeline. SIGTERM and
/// SIGINT stop it gracefully: in-flight requests finish, new connections are refused.
package struct ImageryServer: Sendable {
    package let configuration: ServerConfiguration
    let service: ImageService
    private let http: HTTPClientDataLoader
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
        var loading = HTTPClientDataLoader.Configuration()
        loading.maximumResponseSize = configuration.maximumSourceBytes
        loading.totalDeadline = configuration.upstreamTimeout
        loading.idleTimeout = configuration.upstreamTimeout
        loading.accept = HTTPClientDataLoader.Configuration.accept(ImageDecoder.supportedFormats)
        let policy = configuration.sources
        loading.hopCheck = { url throws(DataLoadingError) in try policy.checkHop(url) }
        let http = HTTPClientDataLoader(configuration: loading)
        self.http = http

        var pipeline = ImagePipeline.Configuration.standard
        pipeline.dataLoader = RetryingDataLoader(wrapping: http)
        pipeline.maximumConcurrentDecodes = configuration.concurrentProcessing
        pipeline.decodingPixelBudget = configuration.decodingPixelBudget
        pipeline.draftHeadroom = configuration.draftHeadroom
        pipeline.imageCache = ImageCache(costLimit: configuration.imageCacheBytes)
        pipeline.maximumConcurrentDownloads = max(8, configuration.concurrentProcessing * 4)
        pipeline.logger = logger
        if let directory = configuration.cacheDirectory {
            var disk = DiskCache.Configuration()
            disk.lockTimeout = configuration.cacheLockTimeout
            if let error = pipeline.useDiskCache(directory: directory, configuration: disk) {
                throw .cacheDirectory("\(error)")
            }
        }
        self.service = try ImageService(
            configuration: configuration, pipeline: ImagePipeline(configuration: pipeline),
            metrics: ServerMetrics(registry: metrics), logger: logger
        )
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
        let app = Application(
            responder: ImageResponder(service: service, logger: logger, instance: instance),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "imagery-server"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                instance.bound(host: host, port: port)
                await onRunning(port)
            },
            logger: logger
        )
        let group = ServiceGroup(configuration: .init(
            services: [app], gracefulShutdownSignals: handlesSignals ? [.sigterm, .sigint] : [], logger: logger
        ))
        do {
            try await group.run()
        } catch {
            try? await http.shutdown()
            throw error
        }
        // Processed images reach the disk cache in the background after their response: let
        // those writes land, so a neighbour sharing the directory (or the next start) finds them.
        if configuration.cacheDirectory != nil {
            logger.info("draining disk-cache writes")
            await service.pipeline.waitUntilIdle()
        }
        try await http.shutdown()
    }
}
