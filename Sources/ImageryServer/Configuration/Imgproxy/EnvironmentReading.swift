import Foundation

import Configuration

/// The environment's part of the settings: our `IMAGERY_*` variables, OpenTelemetry's standard
/// `OTEL_*` ones, and imgproxy's names, each honoured, accepted at imgproxy's default, refused or
/// warned about as ``ImgproxySettings`` says. Every name that sets one of our settings proposes a value; names that disagree about a
/// setting stop the start, naming both.
struct EnvironmentReading {
    /// The configuration below the environment (defaults and `--config`), then with the
    /// environment read into it.
    private var configuration: ServerConfiguration
    /// Each setting's source.
    private(set) var origins: [String: String]
    /// What to say at start.
    private(set) var warnings: [String] = []
    /// For each of our settings, the value each variable that sets it proposed (as shown).
    private var proposals: [String: [(value: String, variable: String)]] = [:]

    init(configuration: ServerConfiguration, origins: [String: String]) {
        self.configuration = configuration
        self.origins = origins
    }

    /// Our own variables, `IMAGERY_<NAME>`.
    mutating func readOwn(_ source: ServerSettings.Source) async throws(SettingError) {
        for setting in ServerSettings.all {
            guard let (value, origin) = try await ServerSettings.value(of: setting.name, kind: setting.kind, in: [source], secret: setting.isSecret)
            else { continue }
            try set(setting, to: value, variable: setting.variable, origin: origin)
        }
    }

    /// imgproxy's settings, under `IMGPROXY_<NAME>` and `IMAGERY_<NAME>`, in imgproxy's units.
    /// An empty value is unset, as it is for imgproxy.
    mutating func readImgproxy(environment: [String: String], variables: EnvironmentVariablesProvider) async throws(SettingError) {
        let failsOnDeprecation = ["IMGPROXY_FAIL_ON_DEPRECATION", "IMAGERY_FAIL_ON_DEPRECATION"].contains {
            ["1", "true", "yes"].contains(environment[$0]?.lowercased() ?? "")
        }
        let readers = [
            (prefix: "imgproxy", reader: ConfigReader(provider: variables.prefixKeys(with: "imgproxy"))),
            (prefix: "imagery", reader: ConfigReader(provider: variables.prefixKeys(with: "imagery"))),
        ]
        for imgproxy in ImgproxySettings.readable {
            for (prefix, reader) in readers {
                let variable = prefix.uppercased() + "_" + imgproxy.name
                // Our own variable of the same name was read as ours already.
                guard let raw = environment[variable], !raw.isEmpty || ImgproxySettings.emptyIsAValue.contains(imgproxy.name),
                      !ServerSettings.all.contains(where: { $0.variable == variable })
                else { continue }
                let source = ServerSettings.Source(reader: reader, describe: { _ in "the environment (\(variable))" })
                try await read(imgproxy, as: variable, raw: raw, from: source, failsOnDeprecation: failsOnDeprecation)
            }
        }
    }

    /// OpenTelemetry's standard variables (`OTEL_SERVICE_NAME`), each setting the setting named
    /// after it (``ServerSettings/standardVariable(of:)``).
    mutating func readStandard(_ variables: EnvironmentVariablesProvider) async throws(SettingError) {
        let reader = ConfigReader(provider: variables)
        for setting in ServerSettings.all {
            guard let variable = ServerSettings.standardVariable(of: setting) else { continue }
            let source = ServerSettings.Source(reader: reader, describe: { _ in "the environment (\(variable))" })
            guard let (value, origin) = try await ServerSettings.value(of: setting.name, kind: setting.kind, in: [source], secret: setting.isSecret, label: variable)
            else { continue }
            try set(setting, to: value, variable: variable, origin: origin)
        }
    }

    /// The configuration once every proposal agrees.
    ///
    /// - Throws: ``SettingError`` naming two variables that set one setting differently.
    func agreed() throws(SettingError) -> ServerConfiguration {
        for setting in ServerSettings.all {
            guard let proposed = proposals[setting.name], let first = proposed.first,
                  let other = proposed.first(where: { $0.value != first.value }) else { continue }
            let shown = { (value: String) in setting.isSecret ? "values that differ" : value }
            throw SettingError(
                setting: other.variable, source: "the environment (\(other.variable))",
                reason: "disagrees with \(first.variable) about \(setting.flag) (\(shown(other.value)) against \(shown(first.value))); set one of them"
            )
        }
        return configuration
    }

    private mutating func read(
        _ imgproxy: ImgproxySetting, as variable: String, raw: String, from source: ServerSettings.Source, failsOnDeprecation: Bool
    ) async throws(SettingError) {
        let origin = "the environment (\(variable))"
        switch imgproxy.disposition {
        case let .honoured(.setting(name)):
            let setting = ServerSettings.setting(named: name)
            if raw.isEmpty {
                // Only a setting whose empty value means something gets here.
                return try set(setting, to: .text(""), variable: variable, origin: origin)
            }
            guard let (value, _) = try await ServerSettings.value(of: imgproxy.key, kind: setting.kind, in: [source], secret: setting.isSecret, label: variable)
            else { return }
            try set(setting, to: value, variable: variable, origin: origin)
        case let .honoured(.converted(kind, sets, _, apply)):
            guard let (value, _) = try await ServerSettings.value(of: imgproxy.key, kind: kind, in: [source], label: variable) else { return }
            var trial = configuration
            do throws(SettingError.Reason) {
                if let warning = try apply(&trial, value) { warnings.append(warning) }
            } catch {
                throw SettingError(setting: variable, source: origin, reason: error.description)
            }
            propose(trial, for: sets, variable: variable, origin: origin)
        case let .honoured(.deprecatedName(current)):
            guard !failsOnDeprecation else {
                throw SettingError(setting: variable, source: origin, reason: "is deprecated (use IMGPROXY_\(current)), and IMGPROXY_FAIL_ON_DEPRECATION is set")
            }
            warnings.append("\(variable) is deprecated; it is read as IMGPROXY_\(current)")
            guard let target = ImgproxySettings.byName[current] else { return }
            try await read(target, as: variable, raw: raw, from: source, failsOnDeprecation: failsOnDeprecation)
        case let .defaultOnly(value, why):
            guard Self.same(raw, value) else {
                throw SettingError(setting: variable, source: origin, reason: "only imgproxy's default, \(value), is accepted: \(why)")
            }
        case let .refused(why, instead, accepting):
            guard let accepting, Self.same(raw, accepting) else {
                throw SettingError(setting: variable, source: origin, reason: "is refused: " + ImgproxySetting.refusal(why: why, instead: instead))
            }
        case let .warned(vendor):
            warnings.append("\(variable) configures \(vendor), which imagery-server does not report to; it is ignored. Use Prometheus (/metrics) or OpenTelemetry instead")
        }
    }

    /// Sets `setting` on the configuration from `variable`'s `value`, proposing what it shows.
    private mutating func set(_ setting: ServerSetting, to value: ServerSetting.Value, variable: String, origin: String) throws(SettingError) {
        var trial = configuration
        do throws(SettingError.Reason) {
            try setting.apply(&trial, value)
        } catch {
            throw SettingError(setting: variable.hasPrefix("IMAGERY_") && setting.variable == variable ? setting.flag : variable, source: origin, reason: error.description)
        }
        propose(trial, for: [setting.name], variable: variable, origin: origin)
    }

    private mutating func propose(_ trial: ServerConfiguration, for names: [String], variable: String, origin: String) {
        for name in names {
            proposals[name, default: []].append((ServerSettings.setting(named: name).show(trial), variable))
            origins[name] = origins[name].map { $0.hasPrefix("the environment") ? $0 : origin } ?? origin
        }
        configuration = trial
    }

    /// Whether two spellings of a value say the same (`true`, `1` and `yes`; `80` and `080`).
    static func same(_ given: String, _ expected: String) -> Bool {
        let given = given.trimmingCharacters(in: .whitespaces).lowercased(), expected = expected.lowercased()
        if given == expected { return true }
        let truth: [String: String] = ["1": "true", "t": "true", "yes": "true", "0": "false", "f": "false", "no": "false"]
        if let a = truth[given] ?? (["true", "false"].contains(given) ? given : nil), let b = truth[expected] ?? (["true", "false"].contains(expected) ? expected : nil) {
            return a == b
        }
        if let a = Double(given), let b = Double(expected) { return a == b }
        return false
    }
}
