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
    /// `IMAGERY_ARGUMENTS_SEPARATOR`: what separates an option's name from its arguments, in
    /// URLs and presets alike. Set it before presets are read (``init(presets:argumentsSeparator:)``
    /// takes it). Default: `:`.
    public var argumentsSeparator: Character = ":"
    /// `IMAGERY_BASE64_URL_INCLUDES_FILENAME`: the last segment of a base64 or encrypted source
    /// is a file name for search engines (`/…/aHR0cDovL2V4YW1wbGUuY29tL3B1cHB5LmpwZw/puppy.jpg`),
    /// dropped when something is left before it. Default: `false`.
    public var base64SourcesIncludeFilename = false

    /// The server's own answers to what a URL leaves unsaid, as option segments applied before
    /// the `default` preset and the URL's own options, which override them: `att:1` for
    /// `IMAGERY_RETURN_ATTACHMENT`, `ar:0` for `IMAGERY_AUTO_ROTATE=false`. Written with
    /// ``argumentsSeparator``; not limited by ``allowedOptions``. Default: none.
    ///
    /// ```swift
    /// rules.defaultSegments = ["att:1"]
    /// try ImgproxyOptions(segments: ["w:300"], rules: rules).returnsAttachment   // true
    /// try ImgproxyOptions(segments: ["att:0"], rules: rules).returnsAttachment   // false
    /// ```
    public var defaultSegments: [String] = []

    /// Every option allowed, no presets.
    public init() {}

    /// Rules with the presets in `presets`, imgproxy's syntax: `name=option/option`, separated
    /// by commas or new lines; blank lines and lines starting with `#` are skipped.
    ///
    /// - Throws: ``ImgproxyError/Kind/invalidOption`` naming the preset, for a preset without a
    ///   name or options, a name given twice, an option that does not parse, or a preset that
    ///   names another preset.
    public init(presets: String) throws(ImgproxyError) {
        try self.init(presets: presets.split(whereSeparator: { $0 == "," || $0 == "\n" }).map(String.init))
    }

    /// Rules with each of `presets` one preset (`name=option/option`), their options written
    /// with `argumentsSeparator`: the entries of `IMAGERY_PRESETS` split at
    /// `IMAGERY_PRESETS_SEPARATOR`, and the lines of a presets file. Blank entries and those
    /// starting with `#` are skipped.
    ///
    /// ```swift
    /// let rules = try ImgproxyOptionRules(presets: ["thumb=rs;fill;300;300", "blurry=bl;4"], argumentsSeparator: ";")
    /// rules.argumentsSeparator   // ";"
    /// ```
    ///
    /// - Throws: ``ImgproxyError/Kind/invalidOption`` naming the preset, as ``init(presets:)``.
    public init(presets: [String], argumentsSeparator: Character = ":") throws(ImgproxyError) {
        self.argumentsSeparator = argumentsSeparator
        self.presets = try Self.presets(presets, validatedAs: ImgproxyOptions.self, separator: argumentsSeparator)
    }

    /// Rules for `/info` URLs with `presets`, each `name=option/option` of info options
    /// (`IMAGERY_INFO_PRESETS`; imgproxy offers these in its Pro edition).
    ///
    /// ```swift
    /// let rules = try ImgproxyOptionRules(infoPresets: ["colours=avg:1/dc:1"])
    /// let options = try ImgproxyInfoOptions(segments: ["pr:colours"], rules: rules)
    /// ```
    ///
    /// - Throws: ``ImgproxyError/Kind/invalidOption`` naming the preset, as ``init(presets:)``.
    public init(infoPresets: [String], argumentsSeparator: Character = ":") throws(ImgproxyError) {
        self.argumentsSeparator = argumentsSeparator
        self.presets = try Self.presets(infoPresets, validatedAs: ImgproxyInfoOptions.self, separator: argumentsSeparator)
    }

    private static func presets<Options: ImgproxyOptionSet>(
        _ entries: [String], validatedAs: Options.Type, separator: Character
    ) throws(ImgproxyError) -> [String: [String]] {
        var presets: [String: [String]] = [:]
        for entry in entries {
            let line = entry.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            guard let equals = line.firstIndex(of: "="), equals != line.startIndex else {
                throw ImgproxyError(.invalidOption, "preset: expected name=options in \(line.prefix(40))")
            }
            let name = String(line[..<equals]), segments = line[line.index(after: equals)...].split(separator: "/").map(String.init)
            guard !segments.isEmpty else { throw ImgproxyError(.invalidOption, "preset \(name.prefix(40)): no options") }
            guard presets[name] == nil else { throw ImgproxyError(.invalidOption, "preset \(name.prefix(40)): given twice") }
            for segment in segments where ["preset", "pr"].contains(ImgproxyArguments(segment: segment, separator: separator).option) {
                throw ImgproxyError(.invalidOption, "preset \(name.prefix(40)): a preset cannot name another")
            }
            do throws(ImgproxyError) {
                var trusted = ImgproxyOptionRules()
                trusted.allowsSecurityOptions = true
                trusted.argumentsSeparator = separator
                _ = try Options(parsing: segments, rules: trusted)
            } catch {
                throw ImgproxyError(.invalidOption, "preset \(name.prefix(40)): \(error.message)")
            }
            presets[name] = segments
        }
        return presets
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
