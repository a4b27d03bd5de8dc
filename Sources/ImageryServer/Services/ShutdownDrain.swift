import Imagery
import ImageryHTTPClient
import Logging
import ServiceLifecycle

/// The last service to stop: once the HTTP server has finished its in-flight requests, it
/// lets the background writes of answered requests land (so a neighbour sharing the cache, or
/// the next start, finds them), then closes the HTTP clients' connections.
struct ShutdownDrain: Service {
    let pipeline: ImagePipeline
    let writes: BackgroundWrites
    let http: HTTPClientDataLoader
    /// Result storage's client, closed after its writes have landed.
    let bucket: S3ObjectClient?
    /// Whether to say it drains: only with a store to drain into.
    let announces: Bool
    let logger: Logger

    func run() async throws {
        // Waits for the group's graceful shutdown; a cancelled group skips the drain but still
        // closes the client, which must not be released open.
        try? await gracefulShutdown()
        if !Task.isCancelled {
            if announces { logger.info("draining response writes") }
            await pipeline.waitUntilIdle()
            await writes.drain()
        }
        try? await bucket?.shutdown()
        try await http.shutdown()
    }
}
