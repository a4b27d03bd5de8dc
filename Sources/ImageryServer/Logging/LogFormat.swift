/// How the server writes its log lines (`--log-format`, imgproxy's `IMGPROXY_LOG_FORMAT`):
/// for people, or for an aggregator to parse. Every format puts the time, the level, the
/// message, the logger's label and the metadata (a request's id among them) on one line.
///
/// ```sh
/// IMGPROXY_LOG_FORMAT=json imagery-server
/// {"time":"2026-11-26T18:05:00Z","level":"INFO","msg":"listening","label":"imagery.server","address":"http://127.0.0.1:8080"}
/// ```
package enum LogFormat: String, CaseIterable, Sendable {
    /// `time level label: key=value … message`.
    case pretty
    /// logfmt: `time=… level=INFO msg="…" label=… key=value`, values quoted where they need it.
    case structured
    /// One JSON object a line: `time`, `level`, `msg`, `label`, then the metadata.
    case json
    /// JSON as Google Cloud Logging reads it: `severity` and `message` for `level` and `msg`.
    case gcp
}
