import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Tracing
#if OpenTelemetry
import OTel
#endif

/// Sends the server's traces, and with `--open-telemetry-enable-logs` and
/// `--open-telemetry-enable-metrics` its log lines and metrics, over OTLP/HTTP through swift-otel, from a ``TelemetryConfiguration``. Made once at start, beside the
/// logging and metrics bootstrap: swift-otel's backends are made here, not through a second
/// `OTel.bootstrap`, so the server's own log handler and Prometheus registry stay as they are.
///
/// ```swift
/// let telemetry = try Telemetry(configuration.telemetry, diagnostics: logger)
/// telemetry?.bootstrapTracing()
/// try await server.run(telemetry: telemetry?.services ?? [])
/// ```
package struct Telemetry: Sendable {
    /// Whether this build sends OpenTelemetry (the `OpenTelemetry` trait).
    package static var isAvailable: Bool {
        #if OpenTelemetry
        true
        #else
        false
        #endif
    }

    /// The work that sends batches; it runs before the server and stops after it, so the last
    /// requests' spans are flushed.
    package let services: [any Service]
    /// The trace and span ids for every log line (`trace_id`, `span_id`).
    package let metadataProvider: Logger.MetadataProvider
    /// The metrics exporter, with `--open-telemetry-enable-metrics`: ``ServerMetrics`` and the
    /// pipeline's counters write to it beside the Prometheus registry.
    package let metricsFactory: (any MetricsFactory)?
    /// Log lines over OTLP, with `--open-telemetry-enable-logs`.
    package let logHandlerFactory: (@Sendable (String) -> any LogHandler)?
    private let tracer: any Tracer

    /// The backends `configuration` asks for; `nil` when it asks for none.
    /// - Parameters:
    ///   - origins: where each setting came from (``ServerSettings/Loaded/origins``), for errors.
    ///   - diagnostics: where swift-otel says what went wrong, at warning and above; lost
    ///     spans are counted and said once (``TelemetryDiagnostics``).
    /// - Throws: ``SettingError`` for a build without the trait or a protocol it does not send,
    ///   else swift-otel's error.
    package init?(_ configuration: TelemetryConfiguration, origins: [String: String] = [:], diagnostics: Logger) throws {
        guard configuration.enabled || configuration.sendsLogs || configuration.sendsMetrics else { return nil }
        try Self.check(configuration, origins: origins)
        #if OpenTelemetry
        // swift-otel reads OTEL_* from the process's environment again as it makes each backend,
        // over what it is given: it would undo a flag's precedence, obey variables the settings
        // table never read, and log the values it read (the exporter's headers, a vendor's key,
        // among them). The settings have read what they take, so the process keeps none.
        for name in ProcessInfo.processInfo.environment.keys where name.hasPrefix("OTEL_") { unsetenv(name) }
        // The client's key as PEM text, likewise: read, and written where only the exporter
        // reads it, it has no reason to stay in the environment.
        for prefix in ["IMGPROXY_", "IMAGERY_"] {
            for name in ["OPEN_TELEMETRY_CLIENT_KEY", "OPEN_TELEMETRY_CLIENT_CERT", "OPEN_TELEMETRY_SERVER_CERT"] { unsetenv(prefix + name) }
        }
        let files = try PEMFiles(configuration)
        var made = false
        defer {
            files?.removeClientPair()
            // A start that fails here never runs the cleanup service.
            if !made { files?.removeAll() }
        }
        let configuration = files?.configuration ?? configuration
        var otel = OTel.Configuration.default
        otel.serviceName = configuration.serviceName
        otel.resourceAttributes = configuration.attributes
        // Lost spans counted, and said once: a collector that is gone would say so every few seconds.
        otel.diagnosticLogger = .custom(TelemetryDiagnostics.logger(forwardingTo: diagnostics))
        otel.diagnosticLogLevel = .warning
        otel.propagators = [.traceContext]
        otel.metrics.enabled = configuration.sendsMetrics
        otel.metrics.exportInterval = .milliseconds(configuration.metricIntervalMilliseconds)
        otel.metrics.exportTimeout = .milliseconds(configuration.metricTimeoutMilliseconds)
        otel.traces.enabled = configuration.enabled
        otel.traces.sampler = Self.sampler(configuration)
        otel.traces.batchSpanProcessor.scheduleDelay = .milliseconds(configuration.batchDelayMilliseconds)
        otel.traces.batchSpanProcessor.exportTimeout = .milliseconds(configuration.exportTimeoutMilliseconds)
        otel.traces.batchSpanProcessor.maxQueueSize = configuration.maximumQueueSize
        otel.traces.batchSpanProcessor.maxExportBatchSize = min(configuration.maximumBatchSize, configuration.maximumQueueSize)
        otel.logs.enabled = configuration.sendsLogs
        // OTEL_EXPORTER_OTLP_ENDPOINT is a base URL: each signal's path is added to it.
        let base = configuration.endpoint.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? "http://localhost:4318"
        otel.traces.otlpExporter = Self.exporter(configuration, endpoint: base + "/v1/traces")
        otel.logs.otlpExporter = Self.exporter(configuration, endpoint: base + "/v1/logs")
        otel.metrics.otlpExporter = Self.exporter(configuration, endpoint: base + "/v1/metrics")

        var services: [any Service] = files.map { [PEMFiles.Cleanup(files: $0)] } ?? []
        /// A backend's factory when it is asked for, its service run with the others.
        func backend<Factory, Exporting: Service>(_ wanted: Bool, _ make: () throws -> (factory: Factory, service: Exporting)) rethrows -> Factory? {
            guard wanted else { return nil }
            let made = try make()
            services.append(made.service)
            return made.factory
        }
        tracer = try backend(configuration.enabled) { try OTel.makeTracingBackend(configuration: otel) }.map { $0 as any Tracer } ?? NoOpTracer()
        logHandlerFactory = try backend(configuration.sendsLogs) { try OTel.makeLoggingBackend(configuration: otel) }
        metricsFactory = try backend(configuration.sendsMetrics) { try OTel.makeMetricsBackend(configuration: otel) }
        self.services = services
        metadataProvider = OTel.makeLoggingMetadataProvider()
        made = true
        #else
        // ServerSettings refuses the settings that lead here in a build without the trait.
        return nil
        #endif
    }

    /// Traces need a build that sends them and a protocol it speaks: imgproxy's default is
    /// gRPC, so an environment that names no protocol is refused, with the line to add.
    static func check(_ telemetry: TelemetryConfiguration, origins: [String: String]) throws(SettingError) {
        guard telemetry.enabled || telemetry.sendsLogs || telemetry.sendsMetrics else { return }
        let setting = telemetry.enabled ? "open-telemetry-enable" : telemetry.sendsLogs ? "open-telemetry-enable-logs" : "open-telemetry-enable-metrics"
        guard isAvailable else {
            throw SettingError(
                setting: "--" + setting, source: origins[setting] ?? "",
                reason: "this build does not send OpenTelemetry; build imagery-server with --traits OpenTelemetry"
            )
        }
        guard let transport = telemetry.transport, TelemetryConfiguration.httpProtocolNames.contains(transport.lowercased()) else {
            let given = telemetry.transport.map { "\($0) is" } ?? "no protocol is set, and imgproxy's default, grpc, is"
            throw SettingError(
                setting: "OTEL_EXPORTER_OTLP_PROTOCOL", source: origins["otel-exporter-otlp-protocol"] ?? "the default",
                reason: "\(given) not sent by imagery-server, which sends OTLP over HTTP: set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf (and the collector's port 4318)"
            )
        }
        let pairs = [
            ("open-telemetry-server-cert", telemetry.certificatePEM, "otel-exporter-otlp-certificate", telemetry.certificatePath),
            ("open-telemetry-client-cert", telemetry.clientCertificatePEM, "otel-exporter-otlp-client-certificate", telemetry.clientCertificatePath),
            ("open-telemetry-client-key", telemetry.clientKeyPEM, "otel-exporter-otlp-client-key", telemetry.clientKeyPath),
        ]
        for (text, pem, file, path) in pairs where pem != nil && path != nil {
            throw SettingError(setting: "--" + text, source: origins[text] ?? "", reason: "give one of --\(text) (PEM text) and --\(file) (a file)")
        }
        let hasCertificate = (telemetry.clientCertificatePEM ?? telemetry.clientCertificatePath) != nil
        let hasKey = (telemetry.clientKeyPEM ?? telemetry.clientKeyPath) != nil
        if hasCertificate != hasKey {
            let given = hasCertificate ? (telemetry.clientCertificatePEM != nil ? "open-telemetry-client-cert" : "otel-exporter-otlp-client-certificate")
                : (telemetry.clientKeyPEM != nil ? "open-telemetry-client-key" : "otel-exporter-otlp-client-key")
            throw SettingError(setting: "--" + given, source: origins[given] ?? "", reason: "mutual TLS needs both the client's certificate and its key")
        }
    }

    /// Makes the tracer the global one, which the pipeline's, the tiers' and the requests'
    /// spans go to. Once per process.
    package func bootstrapTracing() {
        InstrumentationSystem.bootstrap(tracer)
    }

    #if OpenTelemetry
    private static func sampler(_ configuration: TelemetryConfiguration) -> OTel.Configuration.TracesConfiguration.SamplerConfiguration {
        let ratio = configuration.samplerRatio
        return switch configuration.samplerName {
        case "always_on": .alwaysOn
        case "always_off": .alwaysOff
        case "traceidratio": .traceIDRatio(ratio: ratio) ?? .alwaysOn
        case "parentbased_always_off": .parentBasedAlwaysOff
        case "parentbased_traceidratio": .parentBasedTraceIDRatio(ratio: ratio) ?? .parentBasedAlwaysOn
        default: .parentBasedAlwaysOn
        }
    }

    private static func exporter(_ configuration: TelemetryConfiguration, endpoint: String) -> OTel.Configuration.OTLPExporterConfiguration {
        var exporter = OTel.Configuration.OTLPExporterConfiguration.default
        exporter.endpoint = endpoint
        exporter.protocol = .httpProtobuf
        exporter.headers = configuration.headerFields
        exporter.timeout = .milliseconds(configuration.exportTimeoutMilliseconds)
        exporter.certificateFilePath = configuration.certificatePath
        exporter.clientCertificateFilePath = configuration.clientCertificatePath
        exporter.clientKeyFilePath = configuration.clientKeyPath
        return exporter
    }
    #endif
}
