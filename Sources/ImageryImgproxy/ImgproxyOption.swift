import Imagery

/// One imgproxy processing option: its names, how its arguments change ``ImgproxyOptions``, and
/// how ``ImgproxyOptions/segments`` writes it back. The table below is the only place an
/// option's name, arity or range is written; the parser and the URL builder both read it.
struct ImgproxyOption: Sendable {
    /// The full name first, then the short ones; URLs are written with the first short one.
    let names: [String]
    let parse: @Sendable (inout ImgproxyOptions, ImgproxyArguments) throws(ImgproxyError) -> Void
    /// The arguments to write when the option differs from its default; `nil` for aliases that
    /// ``all`` writes through another option (`size` through `resize`).
    let write: (@Sendable (ImgproxyOptions) -> [String]?)?

    /// Every option, in the order ``ImgproxyOptions/segments`` writes them.
    static let all: [ImgproxyOption] = [
        ImgproxyOption(names: ["resize", "rs"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atMost: 5)
            if let type = try arguments.resizingType(at: 0) { options.resizingType = type }
            try options.applySize(arguments, from: 1)
        } write: { options in
            guard options.resizingType != .fit || options.width != 0 || options.height != 0 else { return nil }
            return [options.resizingType.rawValue, String(options.width), String(options.height)]
        },
        ImgproxyOption(names: ["size", "s"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atMost: 4)
            try options.applySize(arguments, from: 0)
        },
        ImgproxyOption(names: ["resizing_type", "rt"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.resizingType = try arguments.resizingType(at: 0) ?? .fit
        },
        ImgproxyOption(names: ["width", "w"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.width = try arguments.int(at: 0) ?? 0
        },
        ImgproxyOption(names: ["height", "h"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.height = try arguments.int(at: 0) ?? 0
        },
        ImgproxyOption(names: ["enlarge", "el"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atMost: 1)
            options.enlarge = try arguments.bool(at: 0) ?? false
        } write: { options in
            options.enlarge ? ["1"] : nil
        },
        ImgproxyOption(names: ["extend", "ex"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atMost: 4)   // extend, then a gravity: a name, or fp with x and y
            options.extend = try arguments.bool(at: 0) ?? false
            if let gravity = try arguments.gravity(from: 1, allowsSmart: false) { options.extendGravity = gravity }
        } write: { options in
            guard options.extend || options.extendGravity != .center else { return nil }
            return [options.extend ? "1" : "0"] + (options.extendGravity == .center ? [] : gravityArguments(options.extendGravity))
        },
        ImgproxyOption(names: ["gravity", "g"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atLeast: 1)
            options.gravity = try arguments.gravity(from: 0, allowsSmart: true) ?? .center
        } write: { options in
            options.gravity == .center ? nil : gravityArguments(options.gravity)
        },
        ImgproxyOption(names: ["dpr"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.dpr = try arguments.double(
                at: 0, in: Double.leastNonzeroMagnitude...ImgproxyLimits.maximumDPR,
                "must be above 0 and at most \(number(ImgproxyLimits.maximumDPR))"
            ) ?? 1
        } write: { options in
            options.dpr == 1 ? nil : [number(options.dpr)]
        },
        ImgproxyOption(names: ["crop", "c"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atLeast: 2)
            let limit = Double(ImgproxyLimits.maximumDimension)
            let why = "sizes must be 0 to \(ImgproxyLimits.maximumDimension)"
            let width = try arguments.double(at: 0, in: 0...limit, why) ?? 0
            let height = try arguments.double(at: 1, in: 0...limit, why) ?? 0
            let gravity = try arguments.gravity(from: 2, allowsSmart: true)
            options.crop = width == 0 && height == 0 ? nil : ImgproxyOptions.Crop(width: width, height: height, gravity: gravity)
        } write: { options in
            guard let crop = options.crop else { return nil }
            return [number(crop.width), number(crop.height)] + (crop.gravity.map(gravityArguments) ?? [])
        },
        ImgproxyOption(names: ["rotate", "rot"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            let degrees = try arguments.int(at: 0, in: -ImgproxyLimits.maximumDimension...ImgproxyLimits.maximumDimension) ?? 0
            guard degrees % 90 == 0 else { throw arguments.invalid("must be a multiple of 90") }
            options.rotate = ((degrees % 360) + 360) % 360
        } write: { options in
            options.rotate == 0 ? nil : [String(options.rotate)]
        },
        ImgproxyOption(names: ["flip", "fl"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atLeast: 1)
            try arguments.expect(atMost: 2)
            options.flipsHorizontally = try arguments.bool(at: 0) ?? false
            options.flipsVertically = try arguments.bool(at: 1) ?? false
        } write: { options in
            guard options.flipsHorizontally || options.flipsVertically else { return nil }
            return [options.flipsHorizontally ? "1" : "0", options.flipsVertically ? "1" : "0"]
        },
        ImgproxyOption(names: ["padding", "pd"]) { options, arguments throws(ImgproxyError) in
            // CSS's shorthand: one value for all sides, two for vertical and horizontal, three
            // for top, horizontal and bottom, four clockwise from the top.
            try arguments.expect(atLeast: 1)
            try arguments.expect(atMost: 4)
            var sides: [Int] = []
            for index in arguments.values.indices { sides.append(try arguments.int(at: index, in: 0...ImgproxyLimits.maximumOutputSide) ?? 0) }
            let (top, right, bottom, left) = switch sides.count {
            case 1: (sides[0], sides[0], sides[0], sides[0])
            case 2: (sides[0], sides[1], sides[0], sides[1])
            case 3: (sides[0], sides[1], sides[2], sides[1])
            default: (sides[0], sides[1], sides[2], sides[3])
            }
            options.padding = top + right + bottom + left == 0 ? nil : ImgproxyOptions.Padding(top: top, right: right, bottom: bottom, left: left)
        } write: { options in
            options.padding.map { [String($0.top), String($0.right), String($0.bottom), String($0.left)] }
        },
        ImgproxyOption(names: ["blur", "bl"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.blur = try arguments.double(
                at: 0, in: 0...ImgproxyLimits.maximumBlurSigma, "sigma must be 0 to \(number(ImgproxyLimits.maximumBlurSigma))"
            ) ?? 0
        } write: { options in
            options.blur == 0 ? nil : [number(options.blur)]
        },
        ImgproxyOption(names: ["sharpen", "sh"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.sharpen = try arguments.double(
                at: 0, in: 0...ImgproxyLimits.maximumSharpenSigma, "sigma must be 0 to \(number(ImgproxyLimits.maximumSharpenSigma))"
            ) ?? 0
        } write: { options in
            options.sharpen == 0 ? nil : [number(options.sharpen)]
        },
        ImgproxyOption(names: ["pixelate", "pix"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.pixelate = try arguments.int(at: 0, in: 0...ImgproxyLimits.maximumDimension) ?? 0
        } write: { options in
            options.pixelate == 0 ? nil : [String(options.pixelate)]
        },
        ImgproxyOption(names: ["background", "bg"]) { options, arguments throws(ImgproxyError) in
            options.background = try arguments.color()
        } write: { options in
            options.background.map { [Hex.encode([$0.red, $0.green, $0.blue])] }
        },
        ImgproxyOption(names: ["quality", "q"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.quality = try arguments.int(at: 0, in: ImgproxyLimits.qualities) ?? 0
        } write: { options in
            options.quality == 0 ? nil : [String(options.quality)]
        },
        ImgproxyOption(names: ["format_quality", "fq"]) { options, arguments throws(ImgproxyError) in
            guard !arguments.values.isEmpty, arguments.values.count % 2 == 0 else { throw arguments.invalid("takes format:quality pairs") }
            var qualities: [ImageFormat: Int] = [:]
            for index in Swift.stride(from: 0, to: arguments.values.count, by: 2) {
                guard let format = try arguments.format(at: index) else { throw arguments.invalid("takes format:quality pairs") }
                qualities[format] = try arguments.int(at: index + 1, in: ImgproxyLimits.qualities) ?? 0
            }
            options.formatQuality = qualities.filter { $0.value > 0 }
        } write: { options in
            guard !options.formatQuality.isEmpty else { return nil }
            return options.formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }.flatMap { [$0.key.imgproxyExtension, String($0.value)] }
        },
        ImgproxyOption(names: ["max_bytes", "mb"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.maximumBytes = try arguments.int(at: 0, in: 0...Int(Int32.max)) ?? 0
        } write: { options in
            options.maximumBytes == 0 ? nil : [String(options.maximumBytes)]
        },
        ImgproxyOption(names: ["format", "f", "ext"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.format = try arguments.format(at: 0)
        } write: { options in
            options.format.map { [$0.imgproxyExtension] }
        },
        ImgproxyOption(names: ["cachebuster", "cb"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            guard arguments.values[0].count <= ImgproxyLimits.maximumCacheBusterLength else {
                throw arguments.invalid("longer than \(ImgproxyLimits.maximumCacheBusterLength) characters")
            }
            options.cacheBuster = arguments.values[0].isEmpty ? nil : arguments.values[0]
        } write: { options in
            options.cacheBuster.map { [$0] }
        },
        // What Imagery always does, whatever the value: its encoders write no metadata and no
        // ICC profile (every image is converted to sRGB), EXIF orientation is always applied,
        // HDR sources come out 8-bit, and a HEIC draft takes the embedded thumbnail whenever it
        // covers the size. Accepted, so that URLs that send them are served; never written.
        ImgproxyOption(names: ["strip_metadata", "sm"], parse: acceptedBoolean),
        ImgproxyOption(names: ["keep_copyright", "kcr"], parse: acceptedBoolean),
        ImgproxyOption(names: ["strip_color_profile", "scp"], parse: acceptedBoolean),
        ImgproxyOption(names: ["preserve_hdr", "ph"], parse: acceptedBoolean),
        ImgproxyOption(names: ["auto_rotate", "ar"], parse: acceptedBoolean),
        ImgproxyOption(names: ["enforce_thumbnail", "eth"], parse: acceptedBoolean),
        ImgproxyOption(names: ["expires", "exp"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            guard let time = try arguments.int(at: 0, in: 0...ImgproxyLimits.latestExpiry) else { throw arguments.invalid("takes a Unix time") }
            options.expires = time
        } write: { options in
            options.expires.map { [String($0)] }
        },
        ImgproxyOption(names: ["circle"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.circle = try arguments.bool(at: 0) ?? false
        } write: { options in
            options.circle ? ["1"] : nil
        },
    ]

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
        if case let .focus(x, y) = gravity { return ["fp", number(x), number(y)] }
        return [gravity.shortName ?? "ce"]
    }
}

extension ImgproxyOptions {
    /// Parses option segments (`["rs:fill:300:200", "g:sm"]`), in order: a later option
    /// overrides an earlier one, as in imgproxy.
    ///
    /// ```swift
    /// let options = try ImgproxyOptions(segments: ["rs:fit:300:300", "bl:2"])
    /// ```
    public init(segments: some Sequence<some StringProtocol>) throws(ImgproxyError) {
        self.init()
        for segment in segments {
            let arguments = ImgproxyArguments(segment: segment)
            guard let option = ImgproxyOption.byName[arguments.option] else {
                throw ImgproxyError(.invalidOption, "unknown option: \(arguments.option.prefix(40))")
            }
            try option.parse(&self, arguments)
        }
        let side = Double(ImgproxyLimits.maximumOutputSide)
        guard Double(width) * dpr <= side, Double(height) * dpr <= side else {
            throw ImgproxyError(.invalidOption, "size: at most \(ImgproxyLimits.maximumOutputSide) pixels a side, dpr included")
        }
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

    fileprivate mutating func applySize(_ arguments: ImgproxyArguments, from start: Int) throws(ImgproxyError) {
        if let width = try arguments.int(at: start) { self.width = width }
        if let height = try arguments.int(at: start + 1) { self.height = height }
        if let enlarge = try arguments.bool(at: start + 2) { self.enlarge = enlarge }
        if let extend = try arguments.bool(at: start + 3) { self.extend = extend }
    }
}
