import Imagery
import Logging

/// A logger whose lines a test reads back: each with its level, message and metadata.
final class CapturedLog: Sendable {
    struct Line: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let lines = Locked<[Line]>([])

    /// A logger at `level` that records here.
    func logger(level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "imagery.server.test") { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    /// The lines logged so far whose message is `message`.
    func lines(_ message: String) -> [Line] {
        lines.withLock { $0.filter { $0.message == message } }
    }

    /// Everything logged so far, as text: what a leak of a secret would show up in.
    var text: String {
        lines.withLock { $0.map { "\($0.level) \($0.message) \($0.metadata)" }.joined(separator: "\n") }
    }

    fileprivate func append(_ line: Line) {
        lines.withLock { $0.append(line) }
    }

    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var merged = metadata
            if let extra = event.metadata { merged.merge(extra) { $1 } }
            log.append(Line(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}
