import Logging
import ServiceLifecycle

/// The HTTP server, saying when its graceful shutdown begins: operators see why new
/// connections are refused, and the shutdown tests wait for that line before they let the
/// in-flight requests finish.
struct AnnouncedServer: Service {
    let server: any Service
    let logger: Logger

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await server.run()
        } onGracefulShutdown: {
            logger.info("shutting down: new connections are refused, in-flight requests finish")
        }
    }
}
