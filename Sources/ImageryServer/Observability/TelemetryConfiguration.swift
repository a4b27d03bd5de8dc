import Foundation

/// Where and how `imagery-server` sends its traces (and, with `--open-telemetry-enable-logs` and
/// `--open-telemetry-enable-metrics`, its log lines and metrics) over OTLP/HTTP: imgproxy's `IMGPROXY_OPEN_TELEMETRY_*` switches and OpenTelemetry's
/// standard `OTEL_*` variables, read once through the settings table (``ServerSettings``).
/// Sending needs a build with the `OpenTelemetry` trait; the spans themselves are made in every
/// build, and cost nothing without a tracer.
///
/// ```sh
/// IMGPROXY_OPEN_TELEMETRY_ENABLE=true \
/// OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 \
/// OTEL_SERVICE_NAME=images imagery-server
/// ```
package struct TelemetryConfiguration: Sendable, Equatable {
    /// `--open-telemetry-enable`: send traces.
    package var enabled = false
    /// `--open-telemetry-enable-logs`: send every log line too, beside standard output.
    package var sendsLogs = false
    /// `--open-telemetry-enable-metrics`: send the `/metrics` series over OTLP too, from the same
    /// counters.
    package var sendsMetrics = false
    /// `OTEL_METRIC_EXPORT_INTERVAL`, in milliseconds: how often the metrics are sent.
    package var metricIntervalMilliseconds = 60000
    /// `OTEL_METRIC_EXPORT_TIMEOUT`, in milliseconds: how long one metrics export may take.
    package var metricTimeoutMilliseconds = 30000
    /// `--open-telemetry-propagate-external`: origin and S3 requests carry `traceparent`.
    package var propagatesExternal = false
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`: the collector's base URL, `/v1/traces`, `/v1/metrics` and
    /// `/v1/logs` added to it.
    package var endpoint: String?
    /// `OTEL_EXPORTER_OTLP_PROTOCOL`: only `http/protobuf` here. imgproxy's default is gRPC, so
    /// an environment that names none is refused rather than sent somewhere it is not heard.
    package var transport: String?
    /// `OTEL_EXPORTER_OTLP_HEADERS`: `name=value` pairs sent with every export (a vendor's key).
    package var headers: [String] = []
    /// `OTEL_SERVICE_NAME`.
    package var serviceName = "imagery-server"
    /// `OTEL_RESOURCE_ATTRIBUTES`: `key=value` pairs naming this process.
    package var resourceAttributes: [String] = []
    /// `OTEL_TRACES_SAMPLER`: which traces are kept (``samplerNames``). Default:
    /// `parentbased_always_on`, every trace, or the caller's decision where it made one.
    package var samplerName = "parentbased_always_on"
    /// `OTEL_TRACES_SAMPLER_ARG`: the share of traces a `…traceidratio` sampler keeps.
    package var samplerRatio = 1.0
    /// `OTEL_BSP_SCHEDULE_DELAY`, in milliseconds: how long spans wait to be sent in a batch.
    package var batchDelayMilliseconds = 5000
    /// `OTEL_BSP_EXPORT_TIMEOUT`, in milliseconds: how long one export may take.
    package var exportTimeoutMilliseconds = 30000
    /// `OTEL_BSP_MAX_QUEUE_SIZE`: spans kept waiting at most; past it new ones are dropped.
    package var maximumQueueSize = 2048
    /// `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`: spans sent at most in one export.
    package var maximumBatchSize = 512
    /// `OTEL_EXPORTER_OTLP_CERTIFICATE`, `…_CLIENT_CERTIFICATE`, `…_CLIENT_KEY`: PEM files for a
    /// collector over TLS.
    package var certificatePath: String?
    package var clientCertificatePath: String?
    package var clientKeyPath: String?
    /// imgproxy's `OPEN_TELEMETRY_SERVER_CERT`, `_CLIENT_CERT` and `_CLIENT_KEY`: the same three,
    /// given as PEM text rather than as files (a secret store's value, a Kubernetes secret).
    package var certificatePEM: String?
    package var clientCertificatePEM: String?
    package var clientKeyPEM: String?

    package init() {}

    /// The samplers OpenTelemetry's SDKs name, but those that need a remote service.
    static let samplerNames = ["always_on", "always_off", "traceidratio", "parentbased_always_on", "parentbased_always_off", "parentbased_traceidratio"]

    /// The protocol names this server sends: OTLP's own and imgproxy's aliases for it.
    static let httpProtocolNames: Set<String> = ["http/protobuf", "http", "https"]

    /// `resourceAttributes` as pairs; a pair without `=` is refused when read.
    var attributes: [String: String] {
        Dictionary(resourceAttributes.compactMap(Self.pair), uniquingKeysWith: { $1 })
    }

    var headerFields: [(String, String)] { headers.compactMap(Self.pair) }

    static func pair(_ item: String) -> (String, String)? {
        guard let equals = item.firstIndex(of: "="), equals != item.startIndex else { return nil }
        return (String(item[..<equals]).trimmingCharacters(in: .whitespaces), String(item[item.index(after: equals)...]).trimmingCharacters(in: .whitespaces))
    }
}
