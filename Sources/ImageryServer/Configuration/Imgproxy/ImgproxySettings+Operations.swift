/// The sections of imgproxy's configuration docs about running it: monitoring (New Relic,
/// Datadog, OpenTelemetry), error reporting, logging, memory and the miscellaneous rest.
extension ImgproxySettings {
    static let monitoring: [ImgproxySetting] = [
        .warned("NEW_RELIC_KEY", vendor: "New Relic"), .warned("NEW_RELIC_APP_NAME", vendor: "New Relic"),
        .warned("NEW_RELIC_LABELS", vendor: "New Relic"), .warned("NEW_RELIC_PROPAGATE_EXTERNAL", vendor: "New Relic"),
        .warned("DATADOG_ENABLE", vendor: "Datadog"), .warned("DATADOG_ENABLE_ADDITIONAL_METRICS", vendor: "Datadog"),
        .warned("DATADOG_PROPAGATE_EXTERNAL", vendor: "Datadog"),
        .converted("OPEN_TELEMETRY_TRACE_ID_GENERATOR", .text, sets: [], note: "random; xray is warned about, and ids stay random") { _, value throws(SettingError.Reason) in
            guard case let .text(name) = value, ["random", "xray"].contains(name.lowercased()) else { throw .invalid("expected random or xray") }
            return name.lowercased() == "xray" ? "IMGPROXY_OPEN_TELEMETRY_TRACE_ID_GENERATOR=xray: trace ids will be random, which AWS X-Ray reads only through a collector that converts them" : nil
        },
        .warned("CLOUD_WATCH_SERVICE_NAME", vendor: "Amazon CloudWatch"), .warned("CLOUD_WATCH_NAMESPACE", vendor: "Amazon CloudWatch"),
        .warned("CLOUD_WATCH_REGION", vendor: "Amazon CloudWatch"),
    ]

    static let reporting: [ImgproxySetting] = [
        .warned("BUGSNAG_KEY", vendor: "Bugsnag"), .warned("BUGSNAG_STAGE", vendor: "Bugsnag"),
        .warned("HONEYBADGER_KEY", vendor: "Honeybadger"), .warned("HONEYBADGER_ENV", vendor: "Honeybadger"),
        .warned("SENTRY_DSN", vendor: "Sentry"), .warned("SENTRY_ENVIRONMENT", vendor: "Sentry"), .warned("SENTRY_RELEASE", vendor: "Sentry"),
        .warned("AIRBRAKE_PROJECT_ID", vendor: "Airbrake"), .warned("AIRBRAKE_PROJECT_KEY", vendor: "Airbrake"),
        .warned("AIRBRAKE_ENVIRONMENT", vendor: "Airbrake"),
    ]

    static let logging: [ImgproxySetting] = [
        .warned("SYSLOG_ENABLE", vendor: "syslog"), .warned("SYSLOG_LEVEL", vendor: "syslog"), .warned("SYSLOG_NETWORK", vendor: "syslog"),
        .warned("SYSLOG_ADDRESS", vendor: "syslog"), .warned("SYSLOG_TAG", vendor: "syslog"),
    ]

    /// Settings that tune Go's or libvips's memory: imagery-server has neither.
    static let memory: [ImgproxySetting] = [
        .defaultOnly("DOWNLOAD_BUFFER_SIZE", "0", why: "it sizes Go's download buffers; imagery-server's are sized by each source's length"),
        .defaultOnly("FREE_MEMORY_INTERVAL", "10", why: "it tunes Go's garbage collector, which imagery-server does not have"),
        .defaultOnly("BUFFER_POOL_CALIBRATION_THRESHOLD", "1024", why: "it tunes Go's buffer pool, which imagery-server does not have"),
        .defaultOnly("MALLOC", "malloc", why: "imagery-server uses the system allocator; jemalloc and tcmalloc are chosen by imgproxy's Docker image"),
    ]

    static let miscellaneous: [ImgproxySetting] = [
        .converted("FAIL_ON_DEPRECATION", .flag, sets: [], note: "a deprecated imgproxy name stops the start") { _, _ throws(SettingError.Reason) in nil },
    ]
}
