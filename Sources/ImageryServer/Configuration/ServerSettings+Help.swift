import Foundation
import Imagery
import ImageryCodecs
import ImageryImgproxy

extension ServerSettings {
    /// `imagery-server --help`, from the tables.
    package static var help: String {
        var lines = [
            "imagery-server: an imgproxy-compatible image server on Imagery's pipeline.",
            "",
            "URLs follow imgproxy's format: /{signature}/{options}/{base64url source}[.ext] or",
            "/{signature}/{options}/plain/{percent-encoded source}[@ext]. Without --key, signatures are not checked.",
            "",
            "Every --name is also the environment variable IMAGERY_NAME and the key name of a --config file.",
            "Flags win over the environment, the environment over the file, the file over the defaults.",
            "",
            "  --config PATH        a JSON or YAML file of settings (flat keys named after the flags)",
            "  --print-config       print the effective configuration, secrets masked, and exit",
            "  --help               show this help",
        ]
        for (title, settings) in concerns {
            lines += ["", title + ":"]
            for setting in settings {
                let flag = "  " + setting.flag + " " + (setting.kind == .flag ? "" : setting.kind.placeholder)
                lines.append(flag.padding(toLength: max(flag.count + 1, 30), withPad: " ", startingAt: 0) + setting.help)
                lines.append(String(repeating: " ", count: 30) + "default: \(setting.shownDefault)")
            }
        }
        lines += ["", "imgproxy's settings are read under their own names (IMGPROXY_NAME, or IMAGERY_NAME), in imgproxy's units:"]
        for imgproxy in ImgproxySettings.readable {
            lines.append("  \(imgproxy.variable): \(imgproxy.disposition.name)" + (imgproxyNote(imgproxy).map { ", " + $0 } ?? ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// ``ResponseVariantKey/settings`` for a server with `configuration`, as `resolved`: made of
    /// exactly the settings whose rows say they change a response's bytes, its stored headers or
    /// which source is read, and what this build writes.
    package static func settingsDigest(of configuration: ServerConfiguration, resolved: ResolvedSettings) -> String {
        let parts = all.compactMap { setting in setting.digest(of: configuration, resolved: resolved).map { (setting.name, $0) } }
        return ResponseVariantKey.settingsDigest(parts + [("formats", ImageEncoder.supportedFormats.map(\.rawValue).sorted().joined(separator: ","))])
    }

    /// `imagery-server --print-config`: every setting's value and where it came from.
    package static func printed(_ loaded: Loaded) -> String {
        let width = all.map(\.name.count).max() ?? 0
        return all.map { setting in
            let name = setting.name.padding(toLength: width, withPad: " ", startingAt: 0)
            return "\(name) = \(setting.shown(in: loaded.configuration))  (\(loaded.origins[setting.name] ?? "default"))"
        }.joined(separator: "\n") + "\n"
    }

    /// The settings as the Markdown tables of `docs/server.md`, which a test keeps equal to these.
    package static var markdown: String {
        var lines: [String] = []
        for (title, settings) in concerns {
            lines += ["", "#### \(title)", "", "| Flag | Variable | Default | What it sets | imgproxy |", "|---|---|---|---|---|"]
            for setting in settings {
                let shown = setting.shownDefault
                let value = shown == "none" || setting.defaultDescription != nil ? shown : "`\(shown)`"
                lines.append("| `\(setting.flag)` | `\(setting.variable)` | \(value) | \(setting.help) | \(setting.imgproxy?.documented ?? "") |")
            }
        }
        return lines.dropFirst().joined(separator: "\n") + "\n"
    }

    /// imgproxy's settings as the Markdown table of `docs/server.md`: each one's disposition
    /// and why, which a test keeps equal to this. The open-source ones come in `order`, imgproxy's
    /// docs' order, which `docs/imgproxy-settings.tsv` keeps: the table itself is made by name,
    /// partly from our rows, and has no order of its own to follow.
    package static func imgproxyMarkdown(order: [String]) -> String {
        var lines = ["| imgproxy's variable | Disposition | What imagery-server does |", "|---|---|---|"]
        for imgproxy in order.compactMap({ ImgproxySettings.byName[$0] }) {
            lines.append("| `\(imgproxy.variable)` | \(imgproxy.disposition.name) | \(imgproxyNote(imgproxy) ?? "") |")
        }
        for imgproxy in ImgproxySettings.pro {
            lines.append("| `\(imgproxy.variable)` (Pro) | \(imgproxy.disposition.name) | \(imgproxyNote(imgproxy) ?? "") |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What an imgproxy setting does here, in one line.
    static func imgproxyNote(_ imgproxy: ImgproxySetting) -> String? {
        switch imgproxy.disposition {
        case let .honoured(.setting(name)): "sets `--\(name)`"
        case let .honoured(.converted(_, sets, note, _)): sets.isEmpty ? note : note + "; sets " + sets.map { "`--\($0)`" }.joined(separator: ", ")
        case let .honoured(.deprecatedName(current)): "an older name of `IMGPROXY_\(current)`, read as it"
        case let .defaultOnly(value, why): "accepted as `\(value)`: \(why)"
        case let .refused(why, instead, accepting): ImgproxySetting.refusal(why: why, instead: instead) + (accepting.map { " (`\($0)` is accepted)" } ?? "")
        case let .warned(vendor): "says it configures \(vendor); use Prometheus or OpenTelemetry"
        }
    }
}
