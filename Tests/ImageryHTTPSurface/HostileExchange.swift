import Foundation

/// One request to imagery-server and what its origin answers, as a hostile client and a hostile
/// origin would write them: the unit of the HTTP property tests and the HTTP fuzz target.
///
/// As text (the fuzz target's input, and its seeds), a request section and an origin section
/// apart by a blank line:
///
/// ```
/// GET /insecure/rs:fit:100:100/plain/ORIGIN@png
/// If-Modified-Since: Sun, 06 Nov 999999999999 08:49:37 GMT
///
/// 200
/// Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT
/// Body: png
/// Later: 2
/// ```
///
/// `ORIGIN` in the path is this exchange's own URL at the origin double, `SHARED` one URL every
/// exchange that names it shares (so that a batch reads one stored answer), `LOCAL` a small
/// photo under the local root. `Body` picks the origin's body (`png`, `jpeg`, `gif`, `svg`, `text`,
/// `empty`, or `raw:` and the bytes themselves); `Later` is how many seconds pass on the
/// server's clock before the same request is asked again, so that stored answers are read back.
package struct HostileExchange: Sendable, CustomStringConvertible {
    package enum Body: Sendable, Equatable {
        case png, jpeg, gif, svg, text, empty
        case raw([UInt8])
    }

    package var method = "GET"
    package var path: String
    package var headers: [(name: String, value: String)] = []
    package var originStatus = 200
    package var originHeaders: [(name: String, value: String)] = []
    package var body = Body.jpeg
    /// Seconds before the second ask; `nil` for one ask only.
    package var later: Int?

    package init(path: String) {
        self.path = path
    }

    /// An exchange read from fuzz input; anything unreadable is left at its default.
    package init(text: String) {
        let sections = text.split(separator: "\n\n", maxSplits: 1, omittingEmptySubsequences: false)
        let request = sections[0].split(separator: "\n", omittingEmptySubsequences: false)
        let first = request.first.map { $0.split(separator: " ", maxSplits: 1) } ?? []
        if first.count == 2 {
            method = String(first[0])
            path = String(first[1])
        } else {
            path = first.first.map(String.init) ?? "/"
        }
        headers = request.dropFirst().compactMap(Self.header)
        guard sections.count == 2 else { return }
        let origin = sections[1].split(separator: "\n", omittingEmptySubsequences: false)
        originStatus = origin.first.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { min(max($0, 100), 599) } ?? 200
        for line in origin.dropFirst() {
            guard let (name, value) = Self.header(line) else { continue }
            switch name.lowercased() {
            case "body": body = Self.body(value)
            case "later": later = Int(value).map { min(max($0, 0), 20 * 365 * 86_400) }
            default: originHeaders.append((name, value))
            }
        }
    }

    package var description: String {
        var lines = ["\(method) \(path)"] + headers.map { "\($0.name): \($0.value.prefix(200))" }
        lines += ["", "\(originStatus)"] + originHeaders.map { "\($0.name): \($0.value.prefix(200))" }
        lines.append("Body: \(body)")
        if let later { lines.append("Later: \(later)") }
        return lines.joined(separator: "\n")
    }

    private static func header(_ line: Substring) -> (name: String, value: String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty else { return nil }
        return (name, String(line[line.index(after: colon)...].drop { $0 == " " }))
    }

    private static func body(_ value: String) -> Body {
        switch value {
        case "png": .png
        case "jpeg": .jpeg
        case "gif": .gif
        case "svg": .svg
        case "text": .text
        case "empty": .empty
        default: value.hasPrefix("raw:") ? .raw(Array(value.utf8.dropFirst(4))) : .jpeg
        }
    }
}
