/// imgproxy's open-source settings, every one with its disposition: the table an imgproxy
/// environment is read through. One table per section of imgproxy's configuration docs, in
/// `ImgproxySettings+{Section}.swift`; `docs/imgproxy-settings.tsv` lists the same names, as
/// taken from imgproxy's docs, with the same dispositions (a test keeps them equal).
package enum ImgproxySettings {
    /// Every setting, in the docs' order.
    package static let all: [ImgproxySetting] = signature + server + security + cookies + compression + formats + watermark
        + fallback + presets + sources + monitoring + reporting + logging + memory + miscellaneous + environment

    /// Every setting read from an environment: the open-source ones, and the Pro ones this
    /// server offers or refuses by name (``pro``).
    package static let readable: [ImgproxySetting] = all + pro

    /// The settings by name.
    package static let byName: [String: ImgproxySetting] = Dictionary(uniqueKeysWithValues: readable.map { ($0.name, $0) })

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
