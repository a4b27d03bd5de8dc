import Foundation

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
        lines += ["", "imgproxy's names work too, in imgproxy's units:"]
        for alias in ImgproxyAlias.all {
            lines.append("  \(alias.variable) (\(alias.note)) sets " + alias.settings.map { "--" + $0 }.joined(separator: " and "))
        }
        return lines.joined(separator: "\n") + "\n"
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
                lines.append("| `\(setting.flag)` | `\(setting.variable)` | \(value) | \(setting.help) | \(setting.imgproxy ?? "") |")
            }
        }
        lines += ["", "#### imgproxy's names", "", "| Variable | Unit | Sets |", "|---|---|---|"]
        for alias in ImgproxyAlias.all {
            lines.append("| `\(alias.variable)` | \(alias.note) | " + alias.settings.map { "`--\($0)`" }.joined(separator: ", ") + " |")
        }
        return lines.dropFirst().joined(separator: "\n") + "\n"
    }
}
