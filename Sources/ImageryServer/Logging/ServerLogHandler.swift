import Foundation
import Logging

/// The server's log lines, one write each to standard output, in a ``LogFormat``. Metadata is
/// formatted when a line is written, not when it is set: Hummingbird sets a request id on a
/// copy of the logger for every request, and swift-log's `StreamLogHandler` formats its whole
/// metadata at every such set, a cost each request paid though nothing was logged.
///
/// ```swift
/// LoggingSystem.bootstrap { ServerLogHandler(label: $0, format: .json, metadataProvider: ServerLogHandler.requestMetadata()) }
/// ```
package struct ServerLogHandler: LogHandler {
    package var metadata: Logger.Metadata = [:]
    package var logLevel: Logger.Level = .info
    /// Read at every line: the request's id and trace (``requestMetadata``).
    package var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let format: LogFormat

    package init(label: String, format: LogFormat = .pretty, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.format = format
        self.metadataProvider = metadataProvider
    }

    /// What every line about a request says of it, whichever logger wrote the line: its
    /// ``RequestID`` as `hb.request.id` (Hummingbird's name), and, when the request is traced,
    /// its trace and span ids (`trace_id`, `span_id`, from `traced`).
    package static func requestMetadata(traced: Logger.MetadataProvider? = nil) -> Logger.MetadataProvider {
        Logger.MetadataProvider {
            var metadata = traced?.get() ?? [:]
            if let id = RequestID.current { metadata["hb.request.id"] = .string(id) }
            return metadata
        }
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        let merged = mergedMetadata(event.metadata)
        let line = Self.line(
            time: Date().formatted(.iso8601), level: event.level, label: label, message: "\(event.message)", metadata: merged, format: format
        )
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// The line's metadata: the provider's first, so what a logger or a call sets explicitly wins.
    func mergedMetadata(_ extra: Logger.Metadata?) -> Logger.Metadata {
        var merged = metadataProvider?.get() ?? [:]
        merged.merge(metadata) { $1 }
        if let extra { merged.merge(extra) { $1 } }
        return merged
    }

    /// One line, without its newline. Metadata keys are sorted, so equal events make equal lines.
    static func line(time: String, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata, format: LogFormat) -> String {
        let fields = metadata.sorted { $0.key < $1.key }
        switch format {
        case .pretty:
            let text = fields.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            return "\(time) \(level) \(label):\(text.isEmpty ? "" : " " + text) \(message)"
        case .structured:
            let head = [("time", time), ("level", severity(level)), ("msg", message), ("label", label)]
            let rest = unclashed(fields, head.map { $0.0 }).map { ($0.0, "\($0.1)") }
            return (head + rest).map { "\(logfmtKey($0.0))=\(logfmtValue($0.1))" }.joined(separator: " ")
        case .json, .gcp:
            let (levelKey, messageKey) = format == .gcp ? ("severity", "message") : ("level", "msg")
            let head = [("time", json(time)), (levelKey, json(severity(level))), (messageKey, json(message)), ("label", json(label))]
            let rest = unclashed(fields, head.map { $0.0 }).map { ($0.0, json($0.1)) }
            return "{" + (head + rest).map { "\(json($0.0)):\($0.1)" }.joined(separator: ",") + "}"
        }
    }

    /// The metadata, a key that repeats one of the line's own kept under `meta.`, so that a
    /// parser never sees a key twice.
    private static func unclashed(_ fields: [(key: String, value: Logger.MetadataValue)], _ reserved: [String]) -> [(String, Logger.MetadataValue)] {
        fields.map { (reserved.contains($0.key) ? "meta." + $0.key : $0.key, $0.value) }
    }

    /// imgproxy's level names: swift-log's trace and debug are DEBUG, info and notice INFO.
    static func severity(_ level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "DEBUG"
        case .info, .notice: "INFO"
        case .warning: "WARNING"
        case .error: "ERROR"
        case .critical: "CRITICAL"
        }
    }

    private static func json(_ value: Logger.MetadataValue) -> String {
        switch value {
        case let .string(text): json(text)
        case let .stringConvertible(item): json(item.description)
        case let .array(items): "[" + items.map(json).joined(separator: ",") + "]"
        case let .dictionary(entries): "{" + entries.sorted { $0.key < $1.key }.map { "\(json($0.key)):\(json($0.value))" }.joined(separator: ",") + "}"
        }
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped.
    static func json(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A logfmt key: characters a parser would split on become `_`.
    private static func logfmtKey(_ key: String) -> String {
        String(key.map { $0 == " " || $0 == "=" || $0 == "\"" || $0.isNewline ? "_" : $0 })
    }

    /// A logfmt value: bare when it holds no space, `=`, quote or control character, else
    /// quoted with JSON's escapes.
    static func logfmtValue(_ value: String) -> String {
        let bare = !value.isEmpty && value.unicodeScalars.allSatisfy { $0.value > 0x20 && $0 != "=" && $0 != "\"" && $0 != "\\" }
        return bare ? value : json(value)
    }
}
