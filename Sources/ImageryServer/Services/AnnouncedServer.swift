import Imagery
import Logging
import ServiceLifecycle

/// The HTTP server, saying when its graceful shutdown begins (operators see why new
/// connections are refused, and the shutdown tests wait for that line before they let the
/// in-flight requests finish) and when `--graceful-stop-timeout` cut it short.
struct AnnouncedServer: Service {
    let server: any Service
    let gracefulStopTimeout: Duration
    let logger: Logger

    func run() async throws {
        let stopping = Locked(false)
        let limit = ServerSetting.number(gracefulStopTimeout.seconds)
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await server.run()
            } onGracefulShutdown: {
                stopping.withLock { $0 = true }
                logger.info("shutting down: new connections are refused, in-flight requests finish")
            }
        } onCancel: {
            // The service group cancels what is still running once the limit has passed.
            guard stopping.withLock({ $0 }) else { return }
            logger.warning("the graceful stop took longer than --graceful-stop-timeout (\(limit) s): in-flight requests and background writes are cancelled")
        }
    }
}
