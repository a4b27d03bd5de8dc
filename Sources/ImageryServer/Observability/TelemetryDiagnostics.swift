import Logging
import Metrics
import Synchronization

/// swift-otel's diagnostic log, read for the spans it lost. swift-otel keeps its dropped count
/// to itself and says so only in its log: once per batch its collector did not take ("Failed
/// to export batch.", with the batch's size), and once per tick its full queue dropped new
/// spans ("Spans were dropped…", with the count). A collector that is gone says both every few
/// seconds for as long as it is gone.
///
/// So each loss is counted in `imagery_telemetry_dropped_spans_total`, and only the first is
/// logged, as one warning naming the counter and the error; the rest would bury every other
/// line. Anything else swift-otel says is passed on as it is.
///
/// Why the log: swift-otel 1.6.0 has no public API that reports lost spans. Its batch span
/// processor, span processor and exporters are internal; the processor's dropped count is
/// internal ("for testing") and reset after each warning. `OTel.makeTracingBackend` returns an
/// opaque tracer and service, and the traces exporter selection offers only OTLP and none, so no
/// processor or exporter of ours can be put in. `OTLPExporterConfiguration.onExportFailure` is
/// public but called only on HTTP 401 (gRPC `unauthenticated`), to refresh headers: it carries
/// no batch size, and a refused connection or a timeout never reaches it. The collector-gone test
/// in `OpenTelemetryTests` checks the count, so a release that rewords the messages fails there.
///
/// ```swift
/// otel.diagnosticLogger = .custom(TelemetryDiagnostics.logger(forwardingTo: diagnostics))
/// ```
struct TelemetryDiagnostics: LogHandler {
    /// The series a loss is counted in.
    static let droppedSpans = "imagery_telemetry_dropped_spans_total"

    /// Whether a loss has been logged, shared by every copy of the handler (a `Logger` copies it).
    final class Record: Sendable {
        let hasWarned = Atomic<Bool>(false)
    }

    private var forwarding: any LogHandler
    private let record: Record
    private let count: @Sendable (Int) -> Void

    /// A logger that counts `logger`'s losses and passes the rest on to it.
    static func logger(forwardingTo logger: Logger) -> Logger {
        let handler = TelemetryDiagnostics(forwarding: logger.handler)
        return Logger(label: logger.label) { _ in handler }
    }

    /// - Parameter count: adds a loss's spans; by default to ``droppedSpans`` in the process's
    ///   metrics, made when the first loss is counted, long after the server bootstrapped them.
    init(forwarding: any LogHandler, count: @escaping @Sendable (Int) -> Void = { Metrics.Counter(label: droppedSpans).increment(by: $0) }) {
        self.forwarding = forwarding
        self.record = Record()
        self.count = count
    }

    var metadata: Logger.Metadata {
        get { forwarding.metadata }
        set { forwarding.metadata = newValue }
    }

    var logLevel: Logger.Level {
        get { forwarding.logLevel }
        set { forwarding.logLevel = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { forwarding[metadataKey: key] }
        set { forwarding[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        // The line names its error (connection refused, a timeout): the handler below prints metadata only.
        if let error = event.error { event.metadata = (event.metadata ?? [:]).merging(["error": "\(error)"]) { $1 } }
        guard let lost = Self.lostSpans(in: event, handlerMetadata: forwarding.metadata), lost > 0 else {
            forwarding.log(event: event)
            return
        }
        count(lost)
        guard !record.hasWarned.exchange(true, ordering: .relaxed) else { return }
        event.message = "OpenTelemetry: spans are being lost (\(event.message)); \(Self.droppedSpans) counts them, and this is said once"
        forwarding.log(event: event)
    }

    /// The spans `event` says were lost, or `nil` when it says nothing of the kind. Matched by
    /// message and component together: swift-otel's log-record processor writes the same
    /// "Failed to export batch." about log lines, which are not spans.
    static func lostSpans(in event: LogEvent, handlerMetadata: Logger.Metadata) -> Int? {
        let metadata = handlerMetadata.merging(event.metadata ?? [:]) { $1 }
        func number(_ key: String) -> Int { metadata[key].flatMap { Int("\($0)") } ?? 0 }
        let component = metadata["component"].map { "\($0)" }
        switch ("\(event.message)", component) {
        case ("Failed to export batch.", "OTelBatchSpanProcessor"): return number("batch_size")
        case ("Spans were dropped this iteration because queue was full", "OTelBatchSpanProcessor"): return number("dropped_count")
        case ("Partial success", "OTLPHTTPSpanExporter"): return number("rejected_spans")
        default: return nil
        }
    }
}
