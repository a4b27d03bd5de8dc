import Imagery

/// One imgproxy option of an option set (processing options, or `/info`'s): its names, how its
/// arguments change the set, and how the set's `segments` write it back. The tables (one per
/// option set, kept in groups in `ImgproxyOptions+{Group}.swift` and
/// `ImgproxyInfoOptions+Table.swift`) are the only place an option's name, arity or range is
/// written; the server's parser and the app's URL builder both read them.
struct ImgproxyOption<Options: ImgproxyOptionSet>: Sendable {
    /// The full name first, then the short ones; URLs are written with the first short one.
    let names: [String]
    let parse: @Sendable (inout Options, ImgproxyArguments) throws(ImgproxyError) -> Void
    /// The arguments to write when the option differs from its default; `nil` for aliases that
    /// the table writes through another option (`size` through `resize`).
    let write: (@Sendable (Options) -> [String]?)?

    init(
        names: [String],
        parse: @escaping @Sendable (inout Options, ImgproxyArguments) throws(ImgproxyError) -> Void,
        write: (@Sendable (Options) -> [String]?)? = nil
    ) {
        self.names = names
        self.parse = parse
        self.write = write
    }
}

/// Every option of one option set, and each of its names.
struct ImgproxyOptionTable<Options: ImgproxyOptionSet>: Sendable {
    /// Every option, in the order the set's `segments` writes them.
    let all: [ImgproxyOption<Options>]
    /// The full names of the options that lower a server's limits, which a server allows or
    /// refuses together.
    let securityNames: Set<String>
    /// Every name of every option, to its option.
    let byName: [String: ImgproxyOption<Options>]

    init(_ all: [ImgproxyOption<Options>], security: [ImgproxyOption<Options>] = []) {
        self.all = all
        self.securityNames = Set(security.map { $0.names[0] })
        self.byName = Dictionary(uniqueKeysWithValues: all.flatMap { option in option.names.map { ($0, option) } })
    }
}

/// A typed set of options that URL segments say through an ``ImgproxyOptionTable``: the
/// processing options (``ImgproxyOptions``) and `/info`'s (``ImgproxyInfoOptions``). Parsing,
/// presets, allow lists and writing back are written once, for both.
protocol ImgproxyOptionSet: Sendable {
    /// The defaults.
    init()
    static var table: ImgproxyOptionTable<Self> { get }
    /// What no single option can check, after every segment is applied.
    func check() throws(ImgproxyError)
}

extension ImgproxyOptionSet {
    func check() throws(ImgproxyError) {}

    /// Parses `segments` under `rules`: the `default` preset first, then each segment in
    /// order (a preset where `pr:` names it, or a bare name under `onlyPresets`), a later
    /// option overriding an earlier.
    init(parsing segments: some Sequence<some StringProtocol>, rules: ImgproxyOptionRules) throws(ImgproxyError) {
        self.init()
        for segment in rules.defaultSegments { try apply(segment, rules: rules, fromPreset: true) }
        if let preset = rules.presets["default"] {
            for segment in preset { try apply(segment, rules: rules, fromPreset: true) }
        }
        for segment in segments {
            if rules.isBarePreset(segment) {
                try apply("pr" + String(rules.argumentsSeparator) + segment, rules: rules, fromPreset: false)
            } else {
                try apply(String(segment), rules: rules, fromPreset: false)
            }
        }
        try check()
    }

    private mutating func apply(_ segment: String, rules: ImgproxyOptionRules, fromPreset: Bool) throws(ImgproxyError) {
        let arguments = ImgproxyArguments(segment: segment, separator: rules.argumentsSeparator)
        if arguments.option == "preset" || arguments.option == "pr" {
            try arguments.expect(atLeast: 1)
            for name in arguments.values {
                guard let preset = rules.presets[name] else { throw ImgproxyError(.invalidOption, "unknown preset: \(name.prefix(40))") }
                for segment in preset { try apply(segment, rules: rules, fromPreset: true) }
            }
            return
        }
        guard let option = Self.table.byName[arguments.option] else {
            throw ImgproxyError(.invalidOption, "unknown \(Self.kind)option: \(arguments.option.prefix(40))")
        }
        if !fromPreset {
            if rules.onlyPresets { throw ImgproxyError(.invalidOption, "option \(arguments.option.prefix(40)): only presets are allowed") }
            if let allowed = rules.allowedOptions, allowed.isDisjoint(with: option.names) {
                throw ImgproxyError(.invalidOption, "option \(arguments.option.prefix(40)): not allowed here")
            }
            if !rules.allowsSecurityOptions, Self.table.securityNames.contains(option.names[0]) {
                throw ImgproxyError(.invalidOption, "option \(arguments.option.prefix(40)): security options are not allowed here")
            }
        }
        try option.parse(&self, arguments)
    }

    /// "info " for `/info`'s options, in errors.
    private static var kind: String { Self.self == ImgproxyInfoOptions.self ? "info " : "" }

    /// The segments that say these options, each at its short name, only those that differ
    /// from their defaults.
    func writtenSegments(separator: String = ":") -> [String] {
        Self.table.all.compactMap { option -> String? in
            guard let arguments = option.write?(self) else { return nil }
            return ([option.names.dropFirst().first ?? option.names[0]] + arguments).joined(separator: separator)
        }
    }

    /// An option Imagery accepts without effect: one boolean, checked as any other.
    static func acceptedBoolean(_ options: inout Self, _ arguments: ImgproxyArguments) throws(ImgproxyError) {
        try arguments.expect(exactly: 1)
        _ = try arguments.bool(at: 0)
    }

    /// A true-or-false option at `path`.
    static func flag(_ names: [String], _ path: any WritableKeyPath<Self, Bool> & Sendable, default value: Bool) -> ImgproxyOption<Self> {
        ImgproxyOption(names: names) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options[keyPath: path] = try arguments.bool(at: 0) ?? false
        } write: { options in
            options[keyPath: path] == value ? nil : [options[keyPath: path] ? "1" : "0"]
        }
    }

    /// `expires`/`exp`: a Unix time after which the URL answers 404; the same for images and
    /// `/info`.
    static func expires(_ path: any WritableKeyPath<Self, Int?> & Sendable) -> ImgproxyOption<Self> {
        ImgproxyOption(names: ["expires", "exp"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            guard let time = try arguments.int(at: 0, in: 0...ImgproxyLimits.latestExpiry) else { throw arguments.invalid("takes a Unix time") }
            options[keyPath: path] = time
        } write: { options in
            options[keyPath: path].map { [String($0)] }
        }
    }

    /// A number as short as it reads back exactly: `2`, `0.5`, `1e-05`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

extension ImgproxyOptions: ImgproxyOptionSet {
    static let table = ImgproxyOptionTable(
        sizeOptions + placementOptions + effectOptions + outputOptions + qualityOptions + deliveryOptions + securityOptions + extensionOptions,
        security: securityOptions
    )

    /// Imagery's own options, not imgproxy's; written last.
    static let extensionOptions: [ImgproxyOption<ImgproxyOptions>] = [
        flag(["circle"], \.circle, default: false),
    ]

    /// The processing options' size limit: the output box and the minimum sizes, `dpr` and
    /// zoom included.
    func check() throws(ImgproxyError) {
        let side = Double(ImgproxyLimits.maximumOutputSide)
        guard Double(max(width, minWidth)) * dpr * zoomWidth <= side, Double(max(height, minHeight)) * dpr * zoomHeight <= side else {
            throw ImgproxyError(.invalidOption, "size: at most \(ImgproxyLimits.maximumOutputSide) pixels a side, dpr and zoom included")
        }
    }

    /// A gravity's arguments: its short name, or `fp`, x and y.
    static func gravityArguments(_ gravity: Gravity) -> [String] {
        switch gravity {
        case let .focus(x, y): return ["fp", number(x), number(y)]
        case let .offset(base, x, y): return [base.shortName ?? "ce", number(x), number(y)]
        default: return [gravity.shortName ?? "ce"]
        }
    }
}

extension ImgproxyOptions {
    /// Parses option segments (`["rs:fill:300:200", "g:sm"]`), in order: a later option
    /// overrides an earlier one, as in imgproxy. Every option is allowed, the security options
    /// included, and there are no presets; a server parses under its own
    /// ``ImgproxyOptionRules`` with ``init(segments:rules:)``.
    ///
    /// ```swift
    /// let options = try ImgproxyOptions(segments: ["rs:fit:300:300", "bl:2"])
    /// ```
    public init(segments: some Sequence<some StringProtocol>) throws(ImgproxyError) {
        var rules = ImgproxyOptionRules()
        rules.allowsSecurityOptions = true
        try self.init(segments: segments, rules: rules)
    }

    /// The option segments that say these options, each at its short name, only those that
    /// differ from their defaults; `["rs:fit:0:0"]` when none do (a URL needs one segment).
    public var segments: [String] {
        let written = writtenSegments()
        return written.isEmpty ? ["rs:fit:0:0"] : written
    }

    mutating func applySize(_ arguments: ImgproxyArguments, from start: Int) throws(ImgproxyError) {
        if let width = try arguments.int(at: start) { self.width = width }
        if let height = try arguments.int(at: start + 1) { self.height = height }
        if let enlarge = try arguments.bool(at: start + 2) { self.enlarge = enlarge }
        if let extend = try arguments.bool(at: start + 3) { self.extend = extend }
    }
}
