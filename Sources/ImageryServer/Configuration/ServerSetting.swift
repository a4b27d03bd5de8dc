import Foundation
import Imagery

/// One setting of `imagery-server`, written once: its name (the flag `--name`, the variable
/// `IMAGERY_NAME`, the key `name` of a `--config` file), what it holds, how it is checked,
/// where it goes in ``ServerConfiguration``, whose defaults it shows, and imgproxy's name for
/// it (``ImgproxyName``), from which the imgproxy table reads it.
package struct ServerSetting: Sendable {
    /// What a setting holds, and so how every source is read for it.
    package enum Kind: Sendable {
        case text, whole, number, flag, list

        /// How the value is written in help and docs.
        var placeholder: String {
            switch self {
            case .text: "TEXT"
            case .whole: "N"
            case .number: "X"
            case .flag: "true|false"
            case .list: "A,B"
            }
        }
    }

    /// A value as a source gave it.
    package enum Value: Sendable, Equatable {
        case text(String), whole(Int), number(Double), flag(Bool), list([String])
    }

    /// What a setting's value changes, declared by every row with ``changing(_:)``: the
    /// response variant key's settings digest is made of exactly the settings that change a
    /// response's bytes, its stored headers, or which source a URL reads.
    package enum Effect: String, Sendable, CaseIterable {
        /// How the server runs (addresses, timeouts, limits that refuse rather than change an
        /// answer): no stored response depends on it.
        case nothingStored = "nothing stored"
        /// The bytes of a response.
        case bytes
        /// The headers stored with a response (`Cache-Control`, `ETag`, `Last-Modified`).
        case storedHeaders = "stored headers"
        /// Which source a URL reads.
        case source
    }

    package let name: String
    package let kind: Kind
    /// One line for `--help` and the docs.
    package let help: String
    /// Masked in `--print-config`.
    package let isSecret: Bool
    /// imgproxy's setting of the same meaning, and how it relates: the imgproxy table
    /// (``ImgproxySettings``) takes its entries for the settings read unchanged from here.
    package let imgproxy: ImgproxyName?
    /// The default in words, where it depends on the machine (`the number of cores`).
    package let defaultDescription: String?
    /// What the value changes; `nil` until the row declares it (a test requires every row to).
    package private(set) var effect: Effect?
    let apply: @Sendable (inout ServerConfiguration, Value) throws(SettingError.Reason) -> Void
    let show: @Sendable (ServerConfiguration) -> String
    /// What the settings digest takes of it, where that is more than what `--print-config`
    /// shows (a file's contents, not its path); `nil` for ``shown(in:)``.
    private(set) var digested: (@Sendable (ServerConfiguration, ResolvedSettings) -> String)?

    /// This setting, declaring what its value changes.
    func changing(_ effect: Effect) -> ServerSetting {
        var setting = self
        setting.effect = effect
        return setting
    }

    /// This setting, whose part of the settings digest is `value` rather than what it shows.
    func digesting(_ value: @escaping @Sendable (ServerConfiguration, ResolvedSettings) -> String) -> ServerSetting {
        var setting = self
        setting.digested = value
        return setting
    }

    /// Its part of the settings digest: `nil` for a setting that changes nothing stored.
    package func digest(of configuration: ServerConfiguration, resolved: ResolvedSettings) -> String? {
        guard let effect, effect != .nothingStored else { return nil }
        return digested?(configuration, resolved) ?? show(configuration)
    }

    /// The flag.
    package var flag: String { "--" + name }
    /// The environment variable.
    package var variable: String { "IMAGERY_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }
    /// The value in `configuration`, as `--print-config` shows it: a secret only as `set` or
    /// `unset`.
    package func shown(in configuration: ServerConfiguration) -> String {
        let value = show(configuration)
        guard isSecret else { return value }
        return value.isEmpty || value == "none" ? "unset" : "set"
    }

    /// The default, as help and docs state it.
    package var shownDefault: String { defaultDescription ?? shown(in: ServerConfiguration()) }
}

extension ServerSetting {
    /// A setting of `kind`, set by `apply` and shown by `show`.
    init(
        _ name: String, _ kind: Kind, _ help: String, secret: Bool = false, imgproxy: ImgproxyName? = nil, default: String? = nil,
        show: @escaping @Sendable (ServerConfiguration) -> String,
        apply: @escaping @Sendable (inout ServerConfiguration, Value) throws(SettingError.Reason) -> Void
    ) {
        self.init(
            name: name, kind: kind, help: help, isSecret: secret, imgproxy: imgproxy, defaultDescription: `default`, effect: nil,
            apply: apply, show: show, digested: nil
        )
    }

    /// A whole number in `range`.
    static func whole(
        _ name: String, _ help: String, _ path: any WritableKeyPath<ServerConfiguration, Int> & Sendable,
        in range: ClosedRange<Int>, imgproxy: ImgproxyName? = nil, default: String? = nil
    ) -> ServerSetting {
        ServerSetting(name, .whole, help, imgproxy: imgproxy, default: `default`, show: { String($0[keyPath: path]) }) { configuration, value throws(SettingError.Reason) in
            guard case let .whole(number) = value, range.contains(number) else { throw .outOfRange(range.description) }
            configuration[keyPath: path] = number
        }
    }

    /// A duration given in seconds, in `range`.
    static func seconds(
        _ name: String, _ help: String, _ path: any WritableKeyPath<ServerConfiguration, Duration> & Sendable,
        in range: ClosedRange<Double>, imgproxy: ImgproxyName? = nil
    ) -> ServerSetting {
        ServerSetting(name, .number, help, imgproxy: imgproxy, show: { ServerSetting.number($0[keyPath: path].seconds) }) {
            configuration, value throws(SettingError.Reason) in
            guard case let .number(seconds) = value, range.contains(seconds) else {
                throw .outOfRange("\(number(range.lowerBound))...\(number(range.upperBound)) seconds")
            }
            configuration[keyPath: path] = .seconds(seconds)
        }
    }

    /// `true` or `false`; a bare flag is `true`.
    static func flag(
        _ name: String, _ help: String, _ path: any WritableKeyPath<ServerConfiguration, Bool> & Sendable, imgproxy: ImgproxyName? = nil
    ) -> ServerSetting {
        ServerSetting(name, .flag, help, imgproxy: imgproxy, show: { String($0[keyPath: path]) }) { configuration, value throws(SettingError.Reason) in
            guard case let .flag(flag) = value else { throw .invalid("expected true or false") }
            configuration[keyPath: path] = flag
        }
    }

    /// Text, checked by `check` (which returns why it is refused, or `nil`); an empty value
    /// sets `nil`.
    static func text(
        _ name: String, _ help: String, _ path: any WritableKeyPath<ServerConfiguration, String?> & Sendable,
        secret: Bool = false, imgproxy: ImgproxyName? = nil, check: @escaping @Sendable (String) -> String? = { _ in nil }
    ) -> ServerSetting {
        ServerSetting(name, .text, help, secret: secret, imgproxy: imgproxy, show: { $0[keyPath: path] ?? "none" }) {
            configuration, value throws(SettingError.Reason) in
            guard case let .text(text) = value else { throw .invalid("expected text") }
            if let why = check(text) { throw .invalid(why) }
            configuration[keyPath: path] = text.isEmpty ? nil : text
        }
    }

    /// Text that is never empty, checked by `check`.
    static func required(
        _ name: String, _ help: String, _ path: any WritableKeyPath<ServerConfiguration, String> & Sendable,
        imgproxy: ImgproxyName? = nil, check: @escaping @Sendable (String) -> String? = { _ in nil }
    ) -> ServerSetting {
        ServerSetting(name, .text, help, imgproxy: imgproxy, show: { $0[keyPath: path] }) { configuration, value throws(SettingError.Reason) in
            guard case let .text(text) = value, !text.isEmpty else { throw .invalid("must not be empty") }
            if let why = check(text) { throw .invalid(why) }
            configuration[keyPath: path] = text
        }
    }

    /// A comma-separated list.
    static func list(
        _ name: String, _ help: String, _ path: any WritableKeyPath<ServerConfiguration, [String]> & Sendable,
        secret: Bool = false, imgproxy: ImgproxyName? = nil
    ) -> ServerSetting {
        ServerSetting(name, .list, help, secret: secret, imgproxy: imgproxy, show: { $0[keyPath: path].isEmpty ? "none" : $0[keyPath: path].joined(separator: ",") }) {
            configuration, value throws(SettingError.Reason) in
            guard case let .list(items) = value else { throw .invalid("expected a comma-separated list") }
            configuration[keyPath: path] = items.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }

    /// A number as short as it reads back: `10`, `0.5`.
    static func number(_ value: Double) -> String {
        guard value == value.rounded(), abs(value) < 1e15 else {
            // A duration read back from attoseconds is off in the last bits (0.30000000000000004).
            return abs(value) < 1e6 ? String((value * 1e9).rounded() / 1e9) : String(value)
        }
        return String(Int(value))
    }
}
