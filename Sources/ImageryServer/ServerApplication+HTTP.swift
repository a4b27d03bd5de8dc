import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

extension ServerApplication {
    /// The HTTP server over this server's parts, with the drain among its services. Hummingbird
    /// stops its services in reverse order: the HTTP server first (its in-flight requests end),
    /// then the drain, which closes the HTTP client last. Tests drive it without a socket.
    package func application() -> some ApplicationProtocol {
        application(instance: InstanceName(configuration: configuration))
    }

    /// The HTTP server, named `instance` in `X-Imagery-Instance`.
    func application(
        instance: InstanceName, onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        var parts = ServerRouter.Parts(
            images: images, info: info, metrics: metrics, instance: instance, demoPage: demoPage,
            healthCheckPath: configuration.healthCheckPath, logger: logger
        )
        parts.pathPrefix = configuration.pathPrefix
        parts.secret = configuration.secret
        parts.allowOrigin = configuration.allowOrigin
        let metrics = metrics
        parts.deadline = RequestDeadline(limit: configuration.requestTimeout, clock: configuration.deadlineClock) { metrics.unavailable(.deadline) }
        parts.servesMetrics = configuration.prometheusBind == nil
        parts.tracesRequests = configuration.telemetry.enabled
        let drain = ShutdownDrain(
            pipeline: pipeline, writes: writes, http: http, bucket: bucket,
            announces: configuration.cacheDirectory != nil || bucket != nil, logger: logger
        )
        return Application(
            router: ServerRouter.make(parts),
            server: .http1(configuration: channelConfiguration),
            configuration: .init(
                address: address, serverName: "imagery-server",
                // Past the limit the listener stops accepting: connections wait in the kernel's
                // backlog, as behind imgproxy's limited listener, instead of being refused.
                availableConnectionsDelegate: configuration.maximumClients > 0 ? MaximumAvailableConnections(configuration.maximumClients, logger: logger) : nil
            ),
            services: [drain],
            onServerRunning: onServerRunning,
            logger: logger
        )
    }

    /// The `--prometheus-bind` listener, `/metrics` alone; `nil` when `/metrics` is served
    /// beside the images. `onServerRunning` gets its bound port.
    func metricsApplication(onServerRunning: @escaping @Sendable (Int) async -> Void) -> (some ApplicationProtocol)? {
        configuration.prometheusBind.map { address in
            Application(
                router: ServerRouter.metricsOnly(metrics),
                configuration: .init(address: .hostname(address.host, port: address.port), serverName: "imagery-server"),
                onServerRunning: { await onServerRunning($0.localAddress?.port ?? 0) },
                logger: logger
            )
        }
    }

    /// Each connection's limits: Hummingbird's idle timeout is the keep-alive timeout; reading
    /// a request and writing a response are timed by ``ConnectionTimeoutHandler``.
    private var channelConfiguration: HTTP1Channel.Configuration {
        let keepAlive = configuration.keepAliveTimeout
        let read = TimeAmount(configuration.readRequestTimeout), write = TimeAmount(configuration.writeResponseTimeout)
        let logger = logger
        return HTTP1Channel.Configuration(
            additionalChannelHandlers: [ConnectionTimeoutHandler(readTimeout: read, writeTimeout: write, keepsAlive: keepAlive > .zero, logger: logger)],
            idleTimeout: keepAlive > .zero ? TimeAmount(keepAlive) : nil
        )
    }
}
