import Foundation
import ImageryGallery
import ImageryServer
import Logging
import Metrics
import Prometheus

/// `imagery-server`: reads its settings (flags, then `IMAGERY_*` and imgproxy's `IMGPROXY_*`,
/// then `--config`, then the defaults; `--help` lists them), then serves until SIGTERM. A setting
/// it cannot use stops it before it listens, with the setting, where the value came from, and
/// why: exit code 64. `imagery-server health` asks the server those settings describe for its
/// health path: exit 0 when it answers, 1 and the reason otherwise.
@main
enum ServerCommand {
    static func main() async {
        let loaded: ServerSettings.Loaded
        do {
            loaded = try await ServerSettings.load(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment)
        } catch {
            fail("\(error)", code: 64)
        }
        switch loaded.action {
        case .help:
            print(ServerSettings.help, terminator: "")
            return
        case .printConfig:
            print(ServerSettings.printed(loaded), terminator: "")
            return
        case .health:
            let (healthy, message) = await HealthCheck.run(loaded.configuration)
            if healthy { return }
            fail(message, code: 1)
        case .serve:
            break
        }
        var configuration = loaded.configuration
        if configuration.demo {
            guard let gallery = Gallery.path else { fail("--demo: this build lacks the embedded gallery", code: 64) }
            configuration.demoRoot = gallery
            configuration.localRoot = gallery
        }

        let format = configuration.logFormat
        // swift-otel's own complaints (an export that failed) go to standard output in our format.
        let diagnostics = Logger(label: "imagery.telemetry") { ServerLogHandler(label: $0, format: format) }
        let telemetry: Telemetry?
        do {
            telemetry = try Telemetry(configuration.telemetry, origins: loaded.origins, diagnostics: diagnostics)
        } catch let error as SettingError {
            fail("\(error)", code: 64)
        } catch {
            fail("OpenTelemetry: \(error)", code: 64)
        }
        let exported = telemetry?.logHandlerFactory
        LoggingSystem.bootstrap({ label, provider in
            let line = ServerLogHandler(label: label, format: format, metadataProvider: provider)
            guard let exported else { return line }
            // The provider here too, so lines sent over OTLP also carry the request's id.
            return MultiplexLogHandler([line, exported(label)], metadataProvider: provider)
        }, metadataProvider: ServerLogHandler.requestMetadata(traced: telemetry?.metadataProvider))
        telemetry?.bootstrapTracing()
        var logger = Logger(label: "imagery.server")
        logger.logLevel = configuration.logLevel
        for warning in loaded.warnings { logger.warning("\(warning)") }
        // Before the pipeline exists: its counters are made when it is.
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(ServerMetrics.metricsFactory(registry: registry, namespace: configuration.prometheusNamespace, exporting: telemetry?.metricsFactory))
        let server: ServerApplication
        do throws(ServerSetupError) {
            try await configuration.loadImages()
            // What no request charges (the runtime, the libraries, the watermark just read),
            // measured before the first request and set aside from --max-memory.
            configuration.processMemory = ResidentMemory.current() ?? configuration.processMemory
            try await configuration.assumeS3Role()
            server = try ServerApplication(configuration: configuration, resolved: loaded.resolved, metrics: registry, exportingMetrics: telemetry?.metricsFactory, logger: logger)
        } catch {
            // Where the value came from, as for any other refused setting.
            let origin = loaded.origins[error.setting]
            fail(origin.map { "\(SettingError(setting: "--" + error.setting, source: $0, reason: error.reason))" } ?? "\(error)", code: 64)
        }
        let announce = logger, listening = configuration, demo = configuration.demo
        do {
            try await server.run(telemetry: telemetry?.services ?? []) { port in
                let address = listening.listeningDescription(port: port)
                announce.info("listening", metadata: ["address": "\(address)"])
                if demo { announce.info("demo page", metadata: ["address": "\(address)\(listening.pathPrefix ?? "")/"]) }
            }
        } catch {
            fail("\(error)", code: 1)
        }
    }

    private static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("imagery-server: \(message)\n".utf8))
        exit(code)
    }
}
