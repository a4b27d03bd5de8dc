/// imgproxy's open-source settings, every one with its disposition: the table an imgproxy
/// environment is read through. A setting that sets one of ours unchanged is named on that
/// setting's row (``ServerSetting/ImgproxyName``), and comes from there; the others (converted,
/// deprecated, default only, refused, warned) are written here, one table per section of
/// imgproxy's configuration docs, in `ImgproxySettings+{Section}.swift`.
/// `docs/imgproxy-settings.tsv` lists the same names, as taken from imgproxy's docs and in
/// their order, with the same dispositions (a test keeps them equal).
package enum ImgproxySettings {
    /// Every setting, sorted by name: most come from our rows, in our concerns' order, so
    /// nothing (help, the order variables are read in) is left to depend on where a row sits.
    /// imgproxy's docs' order is the list's, `docs/imgproxy-settings.tsv`.
    package static let all: [ImgproxySetting] = [
        server, security, formats, sources, monitoring, reporting, logging, memory, miscellaneous, environment, unchanged(pro: false),
    ].joined().sorted { $0.name < $1.name }

    /// Every setting read from an environment: the open-source ones, and the Pro ones this
    /// server offers or refuses by name (``pro``).
    package static let readable: [ImgproxySetting] = all + pro

    /// The settings by name.
    package static let byName: [String: ImgproxySetting] = Dictionary(readable.map { ($0.name, $0) }) { first, _ in
        preconditionFailure("IMGPROXY_\(first.name) is both on a row and in a table of ImgproxySettings: keep one")
    }

    /// The settings that set one of ours unchanged, as the rows name them: the open-source ones,
    /// or with `pro`, imgproxy Pro's.
    static func unchanged(pro: Bool) -> [ImgproxySetting] {
        ServerSettings.all.compactMap { setting -> ImgproxySetting? in
            switch setting.imgproxy {
            case let .same(name, _)? where !pro:
                return ImgproxySetting.same(name, setting.name)
            case let .pro(name)? where pro:
                return ImgproxySetting.same(name, setting.name)
            default:
                return nil
            }
        }
    }

    /// The settings whose empty value is a value, not "unset", as imgproxy reads them: an empty
    /// query separator turns query extraction off.
    static let emptyIsAValue: Set<String> = ["SOURCE_URL_QUERY_SEPARATOR"]

    /// A setting this build does not offer yet: refused by name until its behaviour lands.
    static func pending(_ name: String, _ what: String) -> ImgproxySetting {
        .refused(name, why: "\(what) is not implemented in imagery-server yet", instead: "", accepting: nil)
    }

    /// Says why a value that is on for imgproxy's cloud sources is refused.
    static func otherCloud(_ name: String, _ cloud: String) -> ImgproxySetting {
        .refused(
            name, why: "\(cloud) sources are not read by imagery-server", instead: "an S3-compatible endpoint (--use-s3, --s3-endpoint) or http(s) sources",
            accepting: name.hasPrefix("USE_") ? "false" : nil
        )
    }
}
