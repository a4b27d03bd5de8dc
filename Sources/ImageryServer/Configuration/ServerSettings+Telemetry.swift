import Foundation

extension ServerSettings {
    /// The OpenTelemetry settings: imgproxy's switches, and OpenTelemetry's standard variables,
    /// which are read under their own names (`OTEL_EXPORTER_OTLP_ENDPOINT`) as well as ours.
    static let telemetry: [ServerSetting] = [
        .flag("open-telemetry-enable", "Send traces over OTLP/HTTP (a build with the OpenTelemetry trait; OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf).", \.telemetry.enabled, imgproxy: .same("OPEN_TELEMETRY_ENABLE")).changing(.nothingStored),
        .flag("open-telemetry-enable-logs", "Send every log line over OTLP too, beside standard output.", \.telemetry.sendsLogs, imgproxy: .same("OPEN_TELEMETRY_ENABLE_LOGS")).changing(.nothingStored),
        .flag(
            "open-telemetry-enable-metrics", "Send the /metrics series over OTLP too, every OTEL_METRIC_EXPORT_INTERVAL.", \.telemetry.sendsMetrics,
            imgproxy: .same("OPEN_TELEMETRY_ENABLE_METRICS")
        ).changing(.nothingStored),
        .flag("open-telemetry-propagate-external", "Origin and S3 requests carry the request's trace (traceparent), outside S3's signature.", \.telemetry.propagatesExternal, imgproxy: .same("OPEN_TELEMETRY_PROPAGATE_EXTERNAL")).changing(.nothingStored),
        .text("otel-exporter-otlp-endpoint", "The collector's base URL (OTEL_EXPORTER_OTLP_ENDPOINT); /v1/traces is added. Default: http://localhost:4318.", \.telemetry.endpoint) { url in
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil else { return "expected an http(s) URL" }
            // Shown by --print-config and logged: a credential goes in the headers, a secret.
            guard parsed.user == nil, parsed.password == nil else { return "must not carry user info; put credentials in OTEL_EXPORTER_OTLP_HEADERS" }
            return nil
        }.changing(.nothingStored),
        .text("otel-exporter-otlp-protocol", "OTLP's transport (OTEL_EXPORTER_OTLP_PROTOCOL): http/protobuf, the only one sent (http and https are read as it); grpc is refused.", \.telemetry.transport) { name in
            TelemetryConfiguration.httpProtocolNames.contains(name.lowercased()) || name.lowercased() == "grpc" || name.isEmpty ? nil : "expected http/protobuf"
        }.changing(.nothingStored),
        ServerSetting(
            "otel-exporter-otlp-headers", .list, "name=value pairs sent with every export (OTEL_EXPORTER_OTLP_HEADERS), a vendor's key among them.", secret: true,
            show: { $0.telemetry.headers.isEmpty ? "none" : $0.telemetry.headers.joined(separator: ",") }
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .list(items) = value else { throw .invalid("expected name=value pairs") }
            let pairs = items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            // Not the pair itself: it may be the secret.
            guard pairs.allSatisfy({ TelemetryConfiguration.pair($0) != nil }) else { throw .invalid("expected name=value pairs") }
            configuration.telemetry.headers = pairs
        }.changing(.nothingStored),
        .required("otel-traces-sampler", "Which traces are kept (OTEL_TRACES_SAMPLER): \(TelemetryConfiguration.samplerNames.joined(separator: ", ")).", \.telemetry.samplerName) { name in
            TelemetryConfiguration.samplerNames.contains(name) ? nil : "expected one of \(TelemetryConfiguration.samplerNames.joined(separator: ", "))"
        }.changing(.nothingStored),
        ServerSetting(
            "otel-traces-sampler-arg", .number, "The share of traces a traceidratio sampler keeps, 0 to 1 (OTEL_TRACES_SAMPLER_ARG).",
            show: { ServerSetting.number($0.telemetry.samplerRatio) }
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .number(ratio) = value, (0...1).contains(ratio) else { throw .outOfRange("0...1") }
            configuration.telemetry.samplerRatio = ratio
        }.changing(.nothingStored),
        .required("otel-service-name", "The service's name in traces (OTEL_SERVICE_NAME).", \.telemetry.serviceName).changing(.nothingStored),
        ServerSetting(
            "otel-resource-attributes", .list, "key=value pairs that name this process in traces (OTEL_RESOURCE_ATTRIBUTES).",
            show: { $0.telemetry.resourceAttributes.isEmpty ? "none" : $0.telemetry.resourceAttributes.joined(separator: ",") }
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .list(items) = value else { throw .invalid("expected key=value pairs") }
            let pairs = items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if let bad = pairs.first(where: { TelemetryConfiguration.pair($0) == nil }) { throw .invalid("\(bad.prefix(40)) is not key=value") }
            configuration.telemetry.resourceAttributes = pairs
        }.changing(.nothingStored),
        .whole("otel-bsp-schedule-delay", "Milliseconds spans wait to be sent in a batch (OTEL_BSP_SCHEDULE_DELAY).", \.telemetry.batchDelayMilliseconds, in: 1...3_600_000).changing(.nothingStored),
        .whole("otel-bsp-export-timeout", "Milliseconds one export may take (OTEL_BSP_EXPORT_TIMEOUT).", \.telemetry.exportTimeoutMilliseconds, in: 1...3_600_000).changing(.nothingStored),
        .whole("otel-bsp-max-queue-size", "Spans kept waiting at most; past it new ones are dropped (OTEL_BSP_MAX_QUEUE_SIZE).", \.telemetry.maximumQueueSize, in: 1...1_000_000).changing(.nothingStored),
        .whole("otel-bsp-max-export-batch-size", "Spans sent at most in one export (OTEL_BSP_MAX_EXPORT_BATCH_SIZE).", \.telemetry.maximumBatchSize, in: 1...1_000_000).changing(.nothingStored),
        .whole("otel-metric-export-interval", "Milliseconds between metrics exports (OTEL_METRIC_EXPORT_INTERVAL).", \.telemetry.metricIntervalMilliseconds, in: 1...86_400_000).changing(.nothingStored),
        .whole("otel-metric-export-timeout", "Milliseconds one metrics export may take (OTEL_METRIC_EXPORT_TIMEOUT).", \.telemetry.metricTimeoutMilliseconds, in: 1...3_600_000).changing(.nothingStored),
        .text("otel-exporter-otlp-certificate", "A PEM file of the collector's CA, for https (OTEL_EXPORTER_OTLP_CERTIFICATE).", \.telemetry.certificatePath).changing(.nothingStored),
        .text("otel-exporter-otlp-client-certificate", "A PEM file of this client's certificate, for mutual TLS (OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE).", \.telemetry.clientCertificatePath).changing(.nothingStored),
        .text("otel-exporter-otlp-client-key", "A PEM file of this client's key, for mutual TLS (OTEL_EXPORTER_OTLP_CLIENT_KEY).", \.telemetry.clientKeyPath).changing(.nothingStored),
        .text(
            "open-telemetry-server-cert", "The collector's CA as PEM text, for https; instead of OTEL_EXPORTER_OTLP_CERTIFICATE.", \.telemetry.certificatePEM,
            secret: true, imgproxy: .same("OPEN_TELEMETRY_SERVER_CERT"), check: pemProblem
        ).changing(.nothingStored),
        .text(
            "open-telemetry-client-cert", "This client's certificate as PEM text, for mutual TLS; instead of OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE.",
            \.telemetry.clientCertificatePEM, secret: true, imgproxy: .same("OPEN_TELEMETRY_CLIENT_CERT"), check: pemProblem
        ).changing(.nothingStored),
        .text(
            "open-telemetry-client-key", "This client's key as PEM text, for mutual TLS; instead of OTEL_EXPORTER_OTLP_CLIENT_KEY.", \.telemetry.clientKeyPEM,
            secret: true, imgproxy: .same("OPEN_TELEMETRY_CLIENT_KEY"), check: pemProblem
        ).changing(.nothingStored),
    ]

    /// Why `text` is not PEM, or `nil`. Not the text itself: it may be a key.
    static func pemProblem(_ text: String) -> String? {
        text.isEmpty || text.contains("-----BEGIN ") ? nil : "expected PEM text (-----BEGIN …)"
    }

    /// OpenTelemetry's standard variable of a setting named after it (`otel-service-name` is
    /// `OTEL_SERVICE_NAME`); `nil` for every other.
    static func standardVariable(of setting: ServerSetting) -> String? {
        guard setting.name.hasPrefix("otel-") else { return nil }
        return setting.name.uppercased().replacingOccurrences(of: "-", with: "_")
    }
}
