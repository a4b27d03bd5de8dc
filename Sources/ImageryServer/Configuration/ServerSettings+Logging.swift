import Logging

extension ServerSettings {
    static let logging: [ServerSetting] = [
        ServerSetting(
            "log-level", .text, "The lowest level logged: trace, debug (one line per request), info, notice, warning, error or critical.",
            imgproxy: .same("LOG_LEVEL"), show: { $0.logLevel.rawValue }
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .text(name) = value else { throw .invalid("expected a level") }
            // imgproxy writes "warn".
            guard let level = Logger.Level(rawValue: name == "warn" ? "warning" : name.lowercased()) else {
                throw .invalid("\(name.prefix(20)) is not a level: trace, debug, info, notice, warning, error or critical")
            }
            configuration.logLevel = level
        }.changing(.nothingStored),
        ServerSetting(
            "log-format", .text, "How log lines are written: pretty (for people), structured (logfmt), json, or gcp (JSON for Google Cloud Logging).",
            imgproxy: .same("LOG_FORMAT"), show: { $0.logFormat.rawValue }
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .text(name) = value, let format = LogFormat(rawValue: name.lowercased()) else {
                throw .invalid("expected one of \(LogFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            configuration.logFormat = format
        }.changing(.nothingStored),
        ServerSetting(
            "prometheus-namespace", .text, "Put before every /metrics series' name, with _ (edge: edge_imagery_downloads_total); empty for none.",
            imgproxy: .same("PROMETHEUS_NAMESPACE"), show: { $0.prometheusNamespace.isEmpty ? "none" : $0.prometheusNamespace }
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .text(namespace) = value else { throw .invalid("expected a name") }
            // Prometheus' metric names: a letter or _ first, then letters, digits and _.
            let valid = namespace.isEmpty || (namespace.first.map { $0.isASCII && ($0.isLetter || $0 == "_") } == true
                && namespace.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
            guard valid else { throw .invalid("must be letters, digits and _, not starting with a digit") }
            configuration.prometheusNamespace = namespace
        }.changing(.nothingStored),
        ServerSetting(
            "prometheus-bind", .text, "Serve /metrics on this host:port (:port for every interface) of its own, and not on the server's address; empty for the server's address.",
            imgproxy: .same("PROMETHEUS_BIND"), show: { $0.prometheusBind?.description ?? "none" }
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .text(text) = value else { throw .invalid("expected host:port or :port") }
            if text.isEmpty {
                configuration.prometheusBind = nil
                return
            }
            guard let address = HostAndPort(parsing: text) else { throw .invalid("expected host:port or :port") }
            configuration.prometheusBind = address
        }.changing(.nothingStored),
        .flag("report-downloading-errors", "Log sources that fail to download at warning, with their host (false: at debug).", \.reportDownloadingErrors, imgproxy: .same("REPORT_DOWNLOADING_ERRORS")).changing(.nothingStored),
        .flag("development-errors-mode", "Error bodies carry the detail the log has (which origin failed and how); for development only.", \.developmentErrorsMode, imgproxy: .same("DEVELOPMENT_ERRORS_MODE")).changing(.nothingStored),
    ]
}
