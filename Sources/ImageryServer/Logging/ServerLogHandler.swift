import Foundation
import Logging

/// The server's log lines, one write each to standard output: `time level label: key=value …
/// message`. Metadata is formatted when a line is written, not when it is set: Hummingbird
/// sets a request id on a copy of the logger for every request, and swift-log's
/// `StreamLogHandler` formats its whole metadata at every such set, a cost each request paid
/// though nothing was logged.
///
/// ```swift
/// LoggingSystem.bootstrap(ServerLogHandler.init)
/// ```
package struct ServerLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info
    private let label: String

    package init(label: String) {
        self.label = label
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let time = Date().formatted(.iso8601)
        let line = "\(time) \(event.level) \(label):\(fields.isEmpty ? "" : " " + fields) \(event.message)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
    }
}
