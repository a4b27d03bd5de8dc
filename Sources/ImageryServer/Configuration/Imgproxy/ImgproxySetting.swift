import Foundation

/// One of imgproxy's open-source settings, `IMGPROXY_<name>`, and what `imagery-server` does
/// with it: one of four dispositions, so an operator's imgproxy environment is either honoured
/// or answered by name, never silently dropped.
///
/// A honoured setting is read under its own name and under `IMAGERY_<name>`, in imgproxy's
/// units, beside the setting of ours it sets. ``ImgproxySettings/all`` is the table; a test
/// keeps it equal to `docs/imgproxy-settings.tsv`, the list taken from imgproxy's docs.
package struct ImgproxySetting: Sendable {
    /// What `imagery-server` does with the setting.
    package enum Disposition: Sendable {
        /// Read, with imgproxy's meaning.
        case honoured(Reading)
        /// imgproxy's default (`value`) is accepted, as is an empty value; any other is refused,
        /// saying `why`.
        case defaultOnly(value: String, why: String)
        /// Refused whatever it says (but `accepting`, the value that asks for nothing, and an
        /// empty one), saying why and what to use instead (empty where nothing stands in).
        case refused(why: String, instead: String, accepting: String?)
        /// It only names a vendor's reporting or monitoring service: warned about at start,
        /// pointing to Prometheus and OpenTelemetry.
        case warned(vendor: String)

        /// The disposition's name, as the docs and the list of imgproxy's settings write it.
        package var name: String {
            switch self {
            case .honoured: "honoured"
            case .defaultOnly: "default only"
            case .refused: "refused"
            case .warned: "warned"
            }
        }
    }

    /// How a honoured setting is read.
    package enum Reading: Sendable {
        /// With the same meaning and unit as our setting of that name, and its checks.
        case setting(String)
        /// A value of `kind` in imgproxy's unit that sets `sets` (our settings, by name);
        /// `apply` may return a warning to say at start (a limit kept, a guard lowered).
        case converted(
            kind: ServerSetting.Kind, sets: [String], note: String,
            apply: @Sendable (inout ServerConfiguration, ServerSetting.Value) throws(SettingError.Reason) -> String?
        )
        /// An older name of the imgproxy setting `of`, still read, as imgproxy reads it.
        case deprecatedName(of: String)
    }

    /// imgproxy's name without its prefix (`MAX_SRC_RESOLUTION`).
    package let name: String
    package let disposition: Disposition

    /// The variable imgproxy reads.
    package var variable: String { "IMGPROXY_" + name }
    /// The same setting under our prefix, in imgproxy's units.
    package var ownVariable: String { "IMAGERY_" + name }
    /// The key swift-configuration's environment provider maps to the variable.
    var key: String { name.lowercased().replacingOccurrences(of: "_", with: "-") }
}

extension ImgproxySetting {
    /// A setting read as our setting `setting` is, made from that setting's row
    /// (``ServerSetting/ImgproxyName/same(_:note:)``) rather than written in a table.
    static func same(_ name: String, _ setting: String) -> ImgproxySetting {
        ImgproxySetting(name: name, disposition: .honoured(.setting(setting)))
    }

    /// A setting in imgproxy's unit or form that sets `sets`.
    static func converted(
        _ name: String, _ kind: ServerSetting.Kind, sets: [String], note: String,
        apply: @escaping @Sendable (inout ServerConfiguration, ServerSetting.Value) throws(SettingError.Reason) -> String?
    ) -> ImgproxySetting {
        ImgproxySetting(name: name, disposition: .honoured(.converted(kind: kind, sets: sets, note: note, apply: apply)))
    }

    static func deprecated(_ name: String, of current: String) -> ImgproxySetting {
        ImgproxySetting(name: name, disposition: .honoured(.deprecatedName(of: current)))
    }

    static func defaultOnly(_ name: String, _ value: String, why: String) -> ImgproxySetting {
        ImgproxySetting(name: name, disposition: .defaultOnly(value: value, why: why))
    }

    static func refused(_ name: String, why: String, instead: String, accepting: String? = "false") -> ImgproxySetting {
        ImgproxySetting(name: name, disposition: .refused(why: why, instead: instead, accepting: accepting))
    }

    static func warned(_ name: String, vendor: String) -> ImgproxySetting {
        ImgproxySetting(name: name, disposition: .warned(vendor: vendor))
    }
}

extension ImgproxySetting {
    /// A refusal's reason, with what to use instead where something does.
    static func refusal(why: String, instead: String) -> String {
        instead.isEmpty ? why : "\(why); use \(instead)"
    }

    /// A duration imgproxy reads in whole seconds (Go's `Atoi`: `1.5` is refused there, so here),
    /// at least `minimum`, that sets our setting `setting`, whose unit is seconds too.
    static func seconds(_ name: String, sets setting: String, minimum: Int, note: String? = nil) -> ImgproxySetting {
        .converted(name, .whole, sets: [setting], note: "whole seconds" + (note.map { "; " + $0 } ?? "")) { configuration, value throws(SettingError.Reason) in
            guard case let .whole(seconds) = value, seconds >= minimum else {
                throw .invalid(minimum > 0 ? "must be \(minimum) second or more" : "must not be negative")
            }
            try ServerSettings.setting(named: setting).apply(&configuration, .number(Double(seconds)))
            return nil
        }
    }
}
