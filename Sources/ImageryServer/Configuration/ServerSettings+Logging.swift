import Logging

extension ServerSettings {
    static let logging: [ServerSetting] = [
        ServerSetting(
            "log-level", .text, "The lowest level logged: trace, debug (one line per request), info, notice, warning, error or critical.",
            imgproxy: "IMGPROXY_LOG_LEVEL", show: { $0.logLevel.rawValue }
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .text(name) = value else { throw .invalid("expected a level") }
            // imgproxy writes "warn".
            guard let level = Logger.Level(rawValue: name == "warn" ? "warning" : name.lowercased()) else {
                throw .invalid("\(name.prefix(20)) is not a level: trace, debug, info, notice, warning, error or critical")
            }
            configuration.logLevel = level
        }.changing(.nothingStored),
        .flag("report-downloading-errors", "Log sources that fail to download at warning, with their host (false: at debug).", \.reportDownloadingErrors, imgproxy: "IMGPROXY_REPORT_DOWNLOADING_ERRORS").changing(.nothingStored),
        .flag("development-errors-mode", "Error bodies carry the detail the log has (which origin failed and how); for development only.", \.developmentErrorsMode, imgproxy: "IMGPROXY_DEVELOPMENT_ERRORS_MODE").changing(.nothingStored),
    ]
}
