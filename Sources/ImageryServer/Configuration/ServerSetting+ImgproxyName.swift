extension ServerSetting {
    /// imgproxy's setting of the same meaning, named on the row of the setting it sets. The
    /// imgproxy table (``ImgproxySettings``) takes every setting read unchanged from the rows
    /// that say so, so that an `IMGPROXY_` name is written once.
    ///
    /// ```swift
    /// .whole("jxl-effort", "…", \.encoding.jxlEffort, in: 1...9, imgproxy: .same("JXL_EFFORT"))
    /// ```
    package enum ImgproxyName: Sendable {
        /// imgproxy's `IMGPROXY_<name>` sets this setting unchanged: it is read under that name,
        /// and as `IMAGERY_<name>`, with this setting's kind and checks. `note` says what still
        /// differs (imgproxy's default), for the docs.
        case same(String, note: String? = nil)
        /// imgproxy Pro's `IMGPROXY_<name>`, read as ``same(_:note:)`` is; Pro's settings are
        /// listed apart from the open-source ones (``ImgproxySettings/pro``).
        case pro(String)
        /// imgproxy's `IMGPROXY_<name>` sets this setting from a value in its own `unit` or form.
        /// Its `.converted` entry in ``ImgproxySettings`` owns the conversion, since it may set
        /// several settings or warn; a test keeps the entry and this row naming each other.
        /// `note` says what else differs, for the docs.
        case converted(String, unit: String? = nil, note: String? = nil)

        /// imgproxy's name without its prefix (`JXL_EFFORT`).
        package var name: String {
            switch self {
            case let .same(name, _), let .pro(name), let .converted(name, _, _): name
            }
        }

        /// As the settings tables of the docs write it:
        /// `IMGPROXY_TTL, in seconds (max-age=N, public; no immutable)`.
        package var documented: String {
            var text = "IMGPROXY_" + name
            if case let .converted(_, unit?, _) = self { text += ", in " + unit }
            switch self {
            case let .same(_, note?), let .converted(_, _, note?): text += " (" + note + ")"
            default: break
            }
            return text
        }
    }
}
