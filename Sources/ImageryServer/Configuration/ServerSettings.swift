import Configuration
import ImageryHTTPClient
import Foundation
import SystemPackage

/// Every setting of `imagery-server`, one table per concern, and how they are read: flags,
/// then the environment (`IMAGERY_*`, imgproxy's own names, `IMGPROXY_*`, through
/// ``ImgproxySettings``, and OpenTelemetry's standard `OTEL_*`), then an optional `--config`
/// file (JSON or YAML, flat keys named after the flags), then the defaults of
/// ``ServerConfiguration``. swift-configuration reads every
/// source.
///
/// ```sh
/// imagery-server --port 9000 --max-source-bytes 16777216
/// IMAGERY_PORT=9000 IMGPROXY_MAX_SRC_RESOLUTION=24 imagery-server
/// imagery-server --config imagery.yaml --print-config
/// ```
package enum ServerSettings {
    /// The tables, titled by concern, in the order help and docs show them.
    package static let concerns: [(title: String, settings: [ServerSetting])] = [
        ("Network", network), ("Timeouts", timeouts), ("Security", security), ("Sources", sources), ("Limits", limits),
        ("Responses", responses), ("Freshness and fallback", freshness), ("Processing", processing), ("Autoquality", autoQuality),
        ("Decoding", decoding), ("Caches", caches), ("Logging", logging),
        ("Telemetry", telemetry),
    ]

    /// Every setting.
    package static let all: [ServerSetting] = concerns.flatMap(\.settings)

    private static let byName: [String: ServerSetting] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    package static func setting(named name: String) -> ServerSetting {
        byName[name]!
    }

    /// What the command line asked for besides serving.
    package enum Action: Sendable, Equatable {
        case serve, printConfig, help
        /// `imagery-server health`: ask the server these settings describe whether it is up.
        case health
    }

    /// The configuration, where each setting came from, and what to do with it.
    package struct Loaded: Sendable {
        package var configuration: ServerConfiguration
        /// `configuration` resolved (``ServerConfiguration/resolve()``): what the server is made with.
        package var resolved: ResolvedSettings
        /// Each setting's source by name; a setting at its default has none.
        package var origins: [String: String]
        package var action: Action
        /// Said at start, not refused: variables that name no setting, imgproxy settings that
        /// only name a vendor's service, limits kept where imgproxy would lift them.
        package var warnings: [String]
    }

    /// Reads `arguments` (the program's name first) and `environment` into a configuration,
    /// checked and resolved once (``ServerConfiguration/resolve()``).
    ///
    /// - Throws: ``SettingError`` naming the setting, where its value came from and why it is
    ///   refused: an unknown flag, a value of the wrong kind or out of range, two names of one
    ///   setting that disagree, an imgproxy setting refused by its disposition, an unreadable
    ///   `--config` or environment file.
    package static func load(arguments givenArguments: [String], environment given: [String: String]) async throws(SettingError) -> Loaded {
        // `health` is a subcommand: the settings after it are read as the server reads them.
        var arguments = givenArguments
        let isHealthCheck = arguments.count > 1 && arguments[1] == "health"
        if isHealthCheck { arguments.remove(at: 1) }
        var action = try checkArguments(Array(arguments.dropFirst()))
        if isHealthCheck, action == .serve { action = .health }
        // As imgproxy loads them: AWS's secret, then its parameters, then the file, each over the last.
        let environment = try EnvironmentFile.merged(into: try await AWSEnvironment.merged(into: given))
        let secrets = all.filter(\.isSecret)
        let commandLine = CommandLineArgumentsProvider(arguments: arguments, secretsSpecifier: .specific(Set(secrets.map(\.flag))))
        let variables = EnvironmentVariablesProvider(
            environmentVariables: environment,
            secretsSpecifier: .specific(Set(secrets.map(\.variable) + secrets.compactMap(standardVariable) + ImgproxySettings.secretVariables))
        )
        let flags = Source(reader: ConfigReader(provider: commandLine), describe: { "the command line (--\($0))" })
        let ours = Source(reader: ConfigReader(provider: variables.prefixKeys(with: "imagery")), describe: { "the environment (\(variable($0)))" })
        var file: Source?
        if let (path, origin) = try await value(of: "config", kind: .text, in: [flags, ours]), case let .text(path) = path {
            file = try await fileSource(path, origin: origin)
        }

        var configuration = ServerConfiguration()
        configuration.s3Credentials = AWSCredentials(environment: environment)
        configuration.awsEndpointVariables = environment.filter { $0.key.hasPrefix("AWS_ENDPOINT_URL") }
        var origins: [String: String] = [:]
        // Lowest first: the file, then the environment under every name, then the flags.
        if let file { try await apply(from: file, to: &configuration, origins: &origins) }
        var reading = EnvironmentReading(configuration: configuration, origins: origins)
        try await reading.readOwn(ours)
        try await reading.readImgproxy(environment: environment, variables: variables)
        try await reading.readStandard(variables)
        configuration = try reading.agreed()
        origins = reading.origins
        try await apply(from: flags, to: &configuration, origins: &origins)
        let resolved: ResolvedSettings
        do throws(ServerSetupError) {
            resolved = try configuration.resolve()
        } catch {
            throw SettingError(setting: "--" + error.setting, source: origins[error.setting] ?? "", reason: error.reason)
        }
        try check(configuration, origins: origins)
        return Loaded(
            configuration: configuration, resolved: resolved, origins: origins, action: action,
            warnings: reading.warnings + unknownVariables(in: environment)
        )
    }

    /// Applies every setting `source` has.
    private static func apply(from source: Source, to configuration: inout ServerConfiguration, origins: inout [String: String]) async throws(SettingError) {
        for setting in all {
            guard let (value, origin) = try await value(of: setting.name, kind: setting.kind, in: [source], secret: setting.isSecret) else { continue }
            do throws(SettingError.Reason) {
                try setting.apply(&configuration, value)
            } catch {
                throw SettingError(setting: setting.flag, source: origin, reason: error.description)
            }
            origins[setting.name] = origin
        }
    }

    /// The variables of ours or imgproxy's that name no setting, each said by name.
    private static func unknownVariables(in environment: [String: String]) -> [String] {
        let known = Set(all.map(\.variable) + ImgproxySettings.readable.flatMap { [$0.variable, $0.ownVariable] } + ["IMAGERY_CONFIG"])
        return environment.keys.filter { ($0.hasPrefix("IMAGERY_") || $0.hasPrefix("IMGPROXY_")) && !known.contains($0) }.sorted().map { name in
            ImgproxySettings.isProSetting(name)
                ? "\(name) is an imgproxy Pro setting, which imagery-server does not offer; it is ignored"
                : "\(name) is not a setting of imagery-server or of imgproxy's open-source edition; it is ignored"
        }
    }

    /// One source, read through swift-configuration, and how to say where a value came from.
    struct Source: Sendable {
        let reader: ConfigReader
        let describe: @Sendable (String) -> String
    }

    /// The value of `name` from the first source that has it, and where it came from.
    static func value(
        of name: String, kind: ServerSetting.Kind, in sources: [Source], secret: Bool = false, label: String? = nil
    ) async throws(SettingError) -> (ServerSetting.Value, String)? {
        for source in sources {
            let key = ConfigKey(name)
            let reader = source.reader
            do {
                let value: ServerSetting.Value? = switch kind {
                case .text: try await text(of: key, in: reader, secret: secret).map { .text($0) }
                case .whole: try await reader.fetchInt(forKey: key, isSecret: secret).map { .whole($0) }
                case .number: try await reader.fetchDouble(forKey: key, isSecret: secret).map { .number($0) }
                case .flag: try await reader.fetchBool(forKey: key, isSecret: secret).map { .flag($0) }
                case .list: try await reader.fetchStringArray(forKey: key, isSecret: secret).map { .list($0) }
                }
                if let value { return (value, source.describe(name)) }
            } catch {
                throw SettingError(setting: label ?? "--" + name, source: source.describe(name), reason: "not \(kind.expected)")
            }
        }
        return nil
    }

    /// Text as given: the command line splits values at commas, so a text with commas in it
    /// (several keys) comes back as a list there and is joined again.
    private static func text(of key: ConfigKey, in reader: ConfigReader, secret: Bool) async throws -> String? {
        do {
            return try await reader.fetchString(forKey: key, isSecret: secret)
        } catch {
            guard let parts = try? await reader.fetchStringArray(forKey: key, isSecret: secret) else { throw error }
            return parts.joined(separator: ",")
        }
    }

    private static func fileSource(_ path: String, origin: String) async throws(SettingError) -> Source {
        let describe: @Sendable (String) -> String = { "the config file \(path) (key \($0))" }
        do {
            if path.hasSuffix(".json") {
                return Source(reader: ConfigReader(provider: try await FileProvider<JSONSnapshot>(filePath: FilePath(path))), describe: describe)
            }
            if path.hasSuffix(".yaml") || path.hasSuffix(".yml") {
                return Source(reader: ConfigReader(provider: try await FileProvider<YAMLSnapshot>(filePath: FilePath(path))), describe: describe)
            }
        } catch {
            throw SettingError(setting: "--config", source: origin, reason: "\(path) could not be read: \(error)")
        }
        throw SettingError(setting: "--config", source: origin, reason: "\(path) must end in .json, .yaml or .yml")
    }

    /// What no single setting can check alone.
    private static func check(_ configuration: ServerConfiguration, origins: [String: String]) throws(SettingError) {
        if configuration.demo, configuration.localRoot != nil {
            throw SettingError(setting: "--demo", source: origins["demo"] ?? "", reason: "serves the embedded gallery as its local root; drop --local-root")
        }
        for names in [["watermark-path", "watermark-url", "watermark-data"], ["fallback-image-data", "fallback-image-path", "fallback-image-url"]] {
            let given = names.filter { origins[$0] != nil }
            if given.count > 1 {
                throw SettingError(setting: "--" + given[1], source: origins[given[1]] ?? "", reason: "give one of " + names.map { "--" + $0 }.joined(separator: ", "))
            }
        }
        if configuration.cookiePassthrough.baseURL.map({ URL(string: $0)?.host == nil }) == true {
            throw SettingError(setting: "--cookie-base-url", source: origins["cookie-base-url"] ?? "", reason: "must be a URL with a host, such as https://example.com")
        }
        try checkListening(configuration, origins: origins)
        if configuration.requestsQueueSize > 0, origins["max-queue"] != nil {
            throw SettingError(
                setting: "--requests-queue-size", source: origins["requests-queue-size"] ?? "",
                reason: "give one of --max-queue (requests in flight, then 503) and --requests-queue-size (requests waiting beyond --concurrency, then 429)"
            )
        }
    }

    /// Every argument is a known flag, or the value of the flag before it.
    private static func checkArguments(_ arguments: [String]) throws(SettingError) -> Action {
        let known = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0.kind) })
        var action = Action.serve
        var expectsValue = false, mayTakeValue = false
        for argument in arguments {
            if argument == "--help" || argument == "-h" {
                action = .help
                expectsValue = false
                mayTakeValue = false
                continue
            }
            guard argument.hasPrefix("--") else {
                guard expectsValue || mayTakeValue else { throw SettingError(setting: argument, source: "", reason: "is not a flag: see --help") }
                expectsValue = false
                mayTakeValue = false
                continue
            }
            mayTakeValue = false
            let name = String(argument.dropFirst(2).prefix { $0 != "=" })
            let hasValue = argument.contains("=")
            switch name {
            case "print-config":
                action = action == .help ? .help : .printConfig
                expectsValue = false
            case "config":
                expectsValue = !hasValue
            default:
                guard let kind = known[name] else { throw SettingError(setting: "--" + name, source: "", reason: "is not a setting: see --help") }
                // A flag's value may follow it (`--demo false`) or be left out (`--demo`).
                expectsValue = !hasValue && kind != .flag
                mayTakeValue = !hasValue && kind == .flag
            }
        }
        if expectsValue, let last = arguments.last { throw SettingError(setting: last, source: "", reason: "needs a value") }
        return action
    }

    /// The variable of a setting or meta option named `name`.
    static func variable(_ name: String) -> String {
        "IMAGERY_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }
}

extension ServerSetting.Kind {
    /// What a value of this kind is, for errors.
    var expected: String {
        switch self {
        case .text: "text"
        case .whole: "a whole number"
        case .number: "a number"
        case .flag: "true or false"
        case .list: "a comma-separated list"
        }
    }
}
