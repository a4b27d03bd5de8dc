/// What a URL's source is read as, before the source policy judges it: imgproxy's
/// `IMGPROXY_URL_REPLACEMENTS`, then `IMGPROXY_BASE_URL`.
///
/// A replacement's pattern matches a prefix of the source, `*` standing for any run of
/// characters within one path segment (never `/`); its replacement takes the place of the
/// matched prefix, with `${N}` (or `$N`) the text the N-th `*` matched. Replacements apply in
/// order, each to what the one before left. The base URL is then put in front of any source
/// that does not already start with it, as plain text: the `/` between them is the operator's.
///
/// ```swift
/// let rewrite = try SourceRewrite(replacements: "mys3://*/=s3://my-bucket/${1}/images/", baseURL: nil)
/// rewrite.apply("mys3://thumbs/a.jpg")   // "s3://my-bucket/thumbs/images/a.jpg"
/// ```
struct SourceRewrite: Sendable, Hashable {
    struct Replacement: Sendable, Hashable {
        /// The pattern split at its `*`s: the literal runs between wildcards.
        let literals: [String]
        let replacement: String
    }

    let replacements: [Replacement]
    /// Put in front of sources that do not start with it; `nil` for none.
    let baseURL: String?

    /// Nothing rewritten.
    init() {
        replacements = []
        baseURL = nil
    }

    /// Parses `replacements`, `pattern=replacement` pairs separated by `;` (each split at its
    /// first `=`), as imgproxy reads them.
    ///
    /// - Throws: why a pair is refused (it has no `=`, or an empty pattern).
    init(replacements text: String?, baseURL: String?) throws(SettingError.Reason) {
        var replacements: [Replacement] = []
        let pairs = text.map { $0.isEmpty ? [] : $0.split(separator: ";", omittingEmptySubsequences: false) } ?? []
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "=") else {
                throw .invalid("\(pair.prefix(40)) is not pattern=replacement (pairs are separated by ;)")
            }
            guard equals != pair.startIndex else { throw .invalid("=\(pair[pair.index(after: equals)...].prefix(40)) has an empty pattern") }
            replacements.append(Replacement(
                literals: pair[..<equals].split(separator: "*", omittingEmptySubsequences: false).map(String.init),
                replacement: String(pair[pair.index(after: equals)...])
            ))
        }
        self.replacements = replacements
        self.baseURL = baseURL.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// `source` with every replacement applied, then the base URL.
    func apply(_ source: String) -> String {
        var source = source
        for replacement in replacements {
            guard let (end, captures) = Self.match(replacement.literals[...], in: Substring(source), captures: []) else { continue }
            source = Self.expand(replacement.replacement, captures: captures) + source[end...]
        }
        if let baseURL, !source.hasPrefix(baseURL) { source = baseURL + source }
        return source
    }

    /// Where a prefix of `text` matching `literals` (joined by wildcards) ends, and what each
    /// wildcard took: the first literal at the start, each wildcard as long a run without `/` as
    /// still lets the rest match, as a greedy regular expression would.
    private static func match(_ literals: ArraySlice<String>, in text: Substring, captures: [Substring]) -> (String.Index, [Substring])? {
        guard let literal = literals.first, text.hasPrefix(literal) else { return nil }
        let rest = text.dropFirst(literal.count)
        guard literals.count > 1 else { return (rest.startIndex, captures) }
        let run = rest.prefix { $0 != "/" }
        var end = run.endIndex
        while true {
            if let found = match(literals.dropFirst(), in: rest[end...], captures: captures + [rest[..<end]]) { return found }
            guard end > run.startIndex else { return nil }
            end = run.index(before: end)
        }
    }

    /// `template` with `$N` and `${N}` replaced by the N-th capture (1-based), `$$` by `$`; a
    /// name that is not a capture's number gives nothing, as Go's `Expand` does.
    private static func expand(_ template: String, captures: [Substring]) -> String {
        var result = ""
        var rest = Substring(template)
        while let dollar = rest.firstIndex(of: "$") {
            result += rest[..<dollar]
            rest = rest[rest.index(after: dollar)...]
            let name: Substring
            if rest.first == "$" {
                result += "$"
                rest = rest.dropFirst()
                continue
            } else if rest.first == "{", let close = rest.firstIndex(of: "}") {
                name = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
            } else {
                name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                if name.isEmpty {
                    result += "$"
                    continue
                }
                rest = rest.dropFirst(name.count)
            }
            if let number = Int(name), number >= 1, number <= captures.count { result += captures[number - 1] }
        }
        return result + rest
    }
}
