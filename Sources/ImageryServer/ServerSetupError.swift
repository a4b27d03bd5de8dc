/// Why the server could not start: said before it listens, with the setting to fix.
package enum ServerSetupError: Error, CustomStringConvertible {
    case invalidKey(String)
    case cacheDirectory(String)
    case presets(String)
    case presetsPath(String)
    case formatQuality(String)
    case watermark(String)
    case s3(String)
    case network(String)
    /// Any other setting, by name (`url-replacements`), and why.
    case setting(String, String)

    /// The setting to fix, by name (`key`, `presets-path` …).
    package var setting: String {
        switch self {
        case .invalidKey: "key"
        case .cacheDirectory: "cache-dir"
        case .presets: "presets"
        case .presetsPath: "presets-path"
        case .formatQuality: "format-quality"
        case .watermark: "watermark-path"
        case .s3: "use-s3"
        case .network: "network"
        case let .setting(name, _): name
        }
    }

    /// Why, without the setting's name.
    package var reason: String {
        switch self {
        case let .invalidKey(detail), let .cacheDirectory(detail), let .presets(detail), let .presetsPath(detail),
             let .formatQuality(detail), let .watermark(detail), let .s3(detail), let .network(detail), let .setting(_, detail):
            detail
        }
    }

    package var description: String {
        switch self {
        case let .invalidKey(detail): "--key and --salt: \(detail)"
        case let .cacheDirectory(detail): "--cache-dir: \(detail)"
        case let .presets(detail), let .presetsPath(detail): "presets: \(detail)"
        case let .formatQuality(detail): "--format-quality: \(detail)"
        case let .watermark(detail): "watermark: \(detail)"
        case let .s3(detail): "s3: \(detail)"
        case let .network(detail): "--network: \(detail)"
        case let .setting(name, detail): "--\(name): \(detail)"
        }
    }
}
