/// A setting the server refuses to start with: which one, where its value came from, and why.
/// `imagery-server` prints it and exits with 64 (`EX_USAGE`).
package struct SettingError: Error, CustomStringConvertible, Equatable {
    /// Why a value is refused.
    package enum Reason: Error, Equatable, CustomStringConvertible {
        case invalid(String)
        case outOfRange(String)

        package var description: String {
            switch self {
            case let .invalid(why): why
            case let .outOfRange(range): "must be in \(range)"
            }
        }
    }

    /// The setting, as its flag (`--port`), or the argument that is not one.
    package var setting: String
    /// Where the value came from (`the environment variable IMAGERY_PORT`); empty for errors
    /// about the arguments themselves.
    package var source: String
    package var reason: String

    package init(setting: String, source: String, reason: String) {
        self.setting = setting
        self.source = source
        self.reason = reason
    }

    package var description: String {
        source.isEmpty ? "\(setting): \(reason)" : "\(setting) (from \(source)): \(reason)"
    }
}
