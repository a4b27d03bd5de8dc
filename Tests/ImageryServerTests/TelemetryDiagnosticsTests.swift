import Imagery
@testable import ImageryServer
import Logging
import Testing

/// ``TelemetryDiagnostics`` fed what swift-otel 1.6 logs, as it logs it (its components tag the
/// logger's metadata; a batch's size is the logger's, a queue's drops the line's).
@Suite struct TelemetryDiagnosticsTests {
    /// One handler, as swift-otel is given one logger, and copies it for each component.
    struct Subject {
        let captured = CapturedLog()
        let counted = Locked<[Int]>([])
        let root: Logger

        init() {
            let counted = counted
            let handler = TelemetryDiagnostics(forwarding: CapturedLog.Handler(log: captured)) { lost in counted.withLock { $0.append(lost) } }
            root = Logger(label: "imagery.telemetry") { _ in handler }
        }

        func logger(component: String) -> Logger {
            var logger = root
            logger[metadataKey: "component"] = "\(component)"
            return logger
        }
    }

    struct Refused: Error, CustomStringConvertible {
        var description: String { "connection refused" }
    }

    @Test("Every lost span is counted; only the first loss is logged, naming the counter and the error; log records and other lines pass as they are")
    func lossesAreCountedAndSaidOnce() {
        let subject = Subject()
        var processor = subject.logger(component: "OTelBatchSpanProcessor")
        processor[metadataKey: "batch_size"] = "64"
        processor.warning("Failed to export batch.", error: Refused())
        processor.warning("Failed to export batch.", error: Refused())
        subject.logger(component: "OTelBatchSpanProcessor").warning("Spans were dropped this iteration because queue was full", metadata: ["queue_size": "64", "dropped_count": "37"])
        subject.logger(component: "OTLPHTTPSpanExporter").warning("Partial success", metadata: ["message": "", "rejected_spans": "5"])
        // The same words about log records, not spans; and a partial success that lost nothing.
        var records = subject.logger(component: "OTelBatchLogRecordProcessor")
        records[metadataKey: "batch_size"] = "10"
        records.warning("Failed to export batch.")
        subject.logger(component: "OTLPHTTPSpanExporter").warning("Partial success", metadata: ["message": "odd", "rejected_spans": "0"])

        #expect(subject.counted.withLock { $0 } == [64, 64, 37, 5])
        let said = subject.captured.text
        let losses = said.split(separator: "\n").filter { $0.contains("spans are being lost") }
        #expect(losses.count == 1, "\(said)")
        #expect(losses.first?.contains(TelemetryDiagnostics.droppedSpans) == true && losses.first?.contains("connection refused") == true, "\(said)")
        #expect(subject.captured.lines("Failed to export batch.").count == 1, "the log records' failure, as it was said")
        #expect(subject.captured.lines("Partial success").count == 1, "the partial success that lost nothing")
    }
}
