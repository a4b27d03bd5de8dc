import Foundation
/// What a server lets its URLs say, beyond the options themselves: its presets, whether URLs
/// may name presets only, which options they may use, and whether the security options are
/// allowed. The same rules for every URL of one server; the default allows every option and
/// has no presets.
///
/// Presets are imgproxy's: `name=option/option`, comma-separated or one per line. A preset
/// named `default` applies to every URL before its own options; `preset:a:b` (`pr:a:b`) applies
/// others where it stands, so a later option overrides them.
///
/// ```swift
/// let rules = try ImgproxyOptionRules(presets: "default=q:70,thumb=rs:fill:300:300/g:sm")
/// let options = try ImgproxyOptions(segments: ["pr:thumb", "bl:1"], rules: rules)
/// options.width     // 300
/// options.quality   // 70
/// ```
public struct ImgproxyOptionRules: Sendable, Hashable {
    /// Each preset's option segments, by name.
    public private(set) var presets: [String: [String]] = [:]
    /// `IMAGERY_ONLY_PRESETS`: a URL's option segments are preset names alone
    /// (`/sig/thumb/plain/…`), or `pr:` segments.
    public var onlyPresets = false
    /// `IMAGERY_ALLOWED_PROCESSING_OPTIONS`: the options a URL may use, by either name; `nil`
    /// allows all. Presets are the server's own and are not limited by it.
    public var allowedOptions: Set<String>?
    /// `IMAGERY_ALLOW_SECURITY_OPTIONS`: whether URLs may lower the server's limits with
    /// `max_src_resolution` and the other security options.
    public var allowsSecurityOptions = false
    /// `IMAGERY_ARGUMENTS_SEPARATOR`: what separates an option's name from its arguments.
    /// Default: `:`.
    public var argumentsSeparator: Character = ":"

    /// Every option allowed, no presets.
    public init() {}

    /// Rules with the presets in `presets`, imgproxy's syntax: `name=option/option`, separated
    /// by commas or new lines; blank lines and lines starting with `#` are skipped.
    ///
    /// - Throws: ``ImgproxyError/Kind/invalidOption`` naming the preset, for a preset without a
    ///   name or options, a name given twice, an option that does not parse, or a preset that
    ///   names another preset.
    public init(presets: String) throws(ImgproxyError) {
        for entry in presets.split(whereSeparator: { $0 == "," || $0 == "\n" }) {
            let line = entry.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else {
                throw ImgproxyError(.invalidOption, "preset: expected name=options in \(line.prefix(40))")
            }
            let name = String(line[..<equals]), segments = line[line.index(after: equals)...].split(separator: "/").map(String.init)
            guard !segments.isEmpty else { throw ImgproxyError(.invalidOption, "preset \(name.prefix(40)): no options") }
            guard self.presets[name] == nil else { throw ImgproxyError(.invalidOption, "preset \(name.prefix(40)): given twice") }
            for segment in segments where ["preset", "pr"].contains(ImgproxyArguments(segment: segment, separator: argumentsSeparator).option) {
                throw ImgproxyError(.invalidOption, "preset \(name.prefix(40)): a preset cannot name another")
            }
            do throws(ImgproxyError) {
                var trusted = ImgproxyOptionRules()
                trusted.allowsSecurityOptions = true
                _ = try ImgproxyOptions(segments: segments, rules: trusted)
            } catch {
                throw ImgproxyError(.invalidOption, "preset \(name.prefix(40)): \(error.message)")
            }
            self.presets[name] = segments
        }
    }

    /// Whether the path parser should read a colon-free segment named `segment` as a preset.
    package func isBarePreset(_ segment: some StringProtocol) -> Bool {
        onlyPresets && presets[String(segment)] != nil
    }
}

extension ImgproxyOptions {
    /// Parses option segments under a server's `rules`: its `default` preset first, then each
    /// segment in order (a preset where `pr:` names it), a later option overriding an earlier.
    ///
    /// ```swift
    /// let options = try ImgproxyOptions(segments: ["pr:thumb"], rules: rules)
    /// ```
    ///
    /// - Throws: ``ImgproxyError/Kind/invalidOption`` for an unknown option or preset, an
    ///   option the rules do not allow, or a malformed or out-of-range value.
    public init(segments: some Sequence<some StringProtocol>, rules: ImgproxyOptionRules) throws(ImgproxyError) {
        try self.init(parsing: segments, rules: rules)
    }
}
