import Imagery

/// One imgproxy processing option: its names, how its arguments change ``ImgproxyOptions``, and
/// how ``ImgproxyOptions/segments`` writes it back. The tables (``all``, one per group, in
/// `ImgproxyOption+{Group}.swift`) are the only place an option's name, arity or range is
/// written; the parser and the URL builder both read them.
struct ImgproxyOption: Sendable {
    /// The full name first, then the short ones; URLs are written with the first short one.
    let names: [String]
    let parse: @Sendable (inout ImgproxyOptions, ImgproxyArguments) throws(ImgproxyError) -> Void
    /// The arguments to write when the option differs from its default; `nil` for aliases that
    /// ``all`` writes through another option (`size` through `resize`).
    let write: (@Sendable (ImgproxyOptions) -> [String]?)?

    /// Every option, in the order ``ImgproxyOptions/segments`` writes them.
    static let all: [ImgproxyOption] = sizing + placement + effects + output + delivery + security + extensions

    /// Imagery's own options, not imgproxy's; written last.
    static let extensions: [ImgproxyOption] = [
        ImgproxyOption(names: ["circle"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.circle = try arguments.bool(at: 0) ?? false
        } write: { options in
            options.circle ? ["1"] : nil
        },
    ]

    /// The full names of the security options, which a server allows or refuses together.
    static let securityNames = Set(security.map { $0.names[0] })

    /// Every name of every option, to its option.
    static let byName: [String: ImgproxyOption] = Dictionary(
        uniqueKeysWithValues: all.flatMap { option in option.names.map { ($0, option) } }
    )

    init(
        names: [String],
        parse: @escaping @Sendable (inout ImgproxyOptions, ImgproxyArguments) throws(ImgproxyError) -> Void,
        write: (@Sendable (ImgproxyOptions) -> [String]?)? = nil
    ) {
        self.names = names
        self.parse = parse
        self.write = write
    }

    /// An option Imagery accepts without effect: one boolean, checked as any other.
    static func acceptedBoolean(_ options: inout ImgproxyOptions, _ arguments: ImgproxyArguments) throws(ImgproxyError) {
        try arguments.expect(exactly: 1)
        _ = try arguments.bool(at: 0)
    }

    /// A number as short as it reads back exactly: `2`, `0.5`, `1e-05`.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
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
        let written = ImgproxyOption.all.compactMap { option -> String? in
            guard let arguments = option.write?(self) else { return nil }
            return ([option.names.dropFirst().first ?? option.names[0]] + arguments).joined(separator: ":")
        }
        return written.isEmpty ? ["rs:fit:0:0"] : written
    }

    mutating func applySize(_ arguments: ImgproxyArguments, from start: Int) throws(ImgproxyError) {
        if let width = try arguments.int(at: start) { self.width = width }
        if let height = try arguments.int(at: start + 1) { self.height = height }
        if let enlarge = try arguments.bool(at: start + 2) { self.enlarge = enlarge }
        if let extend = try arguments.bool(at: start + 3) { self.extend = extend }
    }
}
