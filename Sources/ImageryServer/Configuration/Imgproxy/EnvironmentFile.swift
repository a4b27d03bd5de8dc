import Foundation

/// imgproxy's environment file (`IMGPROXY_ENV_LOCAL_FILE_PATH`), read as imgproxy reads it:
/// `KEY=VALUE` lines, blank lines and `#` comments skipped; a value bare, in double quotes (with
/// `\"`, `\\` and `\n`) or in single quotes (taken as it is); `$VAR` and `${VAR}` expanded in bare
/// and double-quoted values. Its values win over the process's own, as imgproxy's loader writes
/// them over its environment.
///
/// ```sh
/// # imgproxy.env
/// IMGPROXY_KEY=943b421c9eb07c83
/// IMGPROXY_BIND="0.0.0.0:${PORT}"
/// ```
enum EnvironmentFile {
    /// `environment` with the file it names (if any) read over it.
    ///
    /// - Throws: ``SettingError`` naming the variable when the file cannot be read or a line
    ///   does not parse.
    static func merged(into environment: [String: String]) throws(SettingError) -> [String: String] {
        guard let (variable, path) = try setting("ENV_LOCAL_FILE_PATH", in: environment) else { return environment }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw SettingError(setting: variable, source: "the environment (\(variable))", reason: "\(path) could not be read as UTF-8 text")
        }
        do throws(SettingError.Reason) {
            return environment.merging(try parse(text, environment: environment)) { $1 }
        } catch {
            throw SettingError(setting: variable, source: "the environment file \(path)", reason: error.description)
        }
    }

    /// imgproxy's setting `name` as `environment` gives it, under `IMGPROXY_` or `IMAGERY_`
    /// (empty is unset): the variable and its value.
    ///
    /// - Throws: ``SettingError`` when both names are set and disagree.
    static func setting(_ name: String, in environment: [String: String]) throws(SettingError) -> (variable: String, value: String)? {
        let names = ["IMGPROXY_" + name, "IMAGERY_" + name].filter { !(environment[$0] ?? "").isEmpty }
        guard let variable = names.first, let value = environment[variable] else { return nil }
        if names.count == 2, environment[names[0]] != environment[names[1]] {
            throw SettingError(setting: names[1], source: "the environment (\(names[1]))", reason: "disagrees with \(names[0]); set one of them")
        }
        return (variable, value)
    }

    /// The variables `text` sets, `$VAR` expanded from what is set before it.
    static func parse(_ text: String, environment: [String: String]) throws(SettingError.Reason) -> [String: String] {
        var values: [String: String] = [:]
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
            if line.isEmpty || line.hasPrefix("#") { continue }
            let body = line.hasPrefix("export ") ? String(line.dropFirst(7)).trimmingCharacters(in: .whitespaces) : line
            guard let equals = body.firstIndex(of: "="), equals != body.startIndex else {
                throw .invalid("line \(index + 1) is not KEY=VALUE")
            }
            let key = body[..<equals].trimmingCharacters(in: .whitespaces)
            guard key.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { throw .invalid("line \(index + 1): \(key.prefix(40)) is not a variable name") }
            let known = environment.merging(values) { $1 }
            values[key] = try value(body[body.index(after: equals)...].trimmingCharacters(in: .whitespaces), line: index + 1, environment: known)
        }
        return values
    }

    private static func value(_ text: String, line: Int, environment: [String: String]) throws(SettingError.Reason) -> String {
        if text.hasPrefix("'") {
            guard text.count >= 2, text.hasSuffix("'") else { throw .invalid("line \(line): an unclosed single quote") }
            return String(text.dropFirst().dropLast())
        }
        if text.hasPrefix("\"") {
            guard text.count >= 2, text.hasSuffix("\""), !text.hasSuffix("\\\"") || text.hasSuffix("\\\\\"") else {
                throw .invalid("line \(line): an unclosed double quote")
            }
            var unescaped = ""
            var escaping = false
            for character in text.dropFirst().dropLast() {
                if escaping {
                    switch character {
                    case "n": unescaped.append("\n")
                    case "\"", "\\", "$": unescaped.append(character)
                    default: unescaped += "\\" + String(character)
                    }
                    escaping = false
                } else if character == "\\" {
                    escaping = true
                } else {
                    unescaped.append(character)
                }
            }
            return expand(unescaped, environment: environment)
        }
        // A bare value ends at a comment.
        let bare = text.range(of: " #").map { String(text[..<$0.lowerBound]) } ?? text
        return expand(bare.trimmingCharacters(in: .whitespaces), environment: environment)
    }

    /// `$VAR` and `${VAR}` replaced by their values (empty when unset).
    static func expand(_ text: String, environment: [String: String]) -> String {
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            guard character == "$", text.index(after: index) < text.endIndex else {
                result.append(character)
                index = text.index(after: index)
                continue
            }
            var cursor = text.index(after: index)
            let braced = text[cursor] == "{"
            if braced { cursor = text.index(after: cursor) }
            let start = cursor
            while cursor < text.endIndex, text[cursor].isLetter || text[cursor].isNumber || text[cursor] == "_" { cursor = text.index(after: cursor) }
            let name = String(text[start..<cursor])
            if braced {
                guard cursor < text.endIndex, text[cursor] == "}" else {
                    result += String(text[index..<cursor])
                    index = cursor
                    continue
                }
                cursor = text.index(after: cursor)
            }
            if name.isEmpty {
                result.append("$")
                index = text.index(after: index)
                continue
            }
            result += environment[name] ?? ""
            index = cursor
        }
        return result
    }
}
