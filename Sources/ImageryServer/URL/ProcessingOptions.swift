import Imagery

/// imgproxy's processing options, parsed into one typed value: every option in its full and
/// short name, an unknown or malformed one refused with a message that names it.
///
/// Arguments are `:`-separated and may be left empty to keep their default
/// (`rs:fill::300` keeps the width at 0, "from the other side").
struct ProcessingOptions: Equatable {
    enum ResizingType: String, Equatable {
        case fit, fill, fillDown = "fill-down", force, auto
    }

    /// A crop of the source before resizing: pixels, or a fraction of the source when ≤ 1.
    struct Crop: Equatable {
        var width: Double
        var height: Double
        var gravity: Gravity?
    }

    var resizingType = ResizingType.fit
    /// 0 means "from the other side" (or the source's size when both are 0).
    var width = 0
    var height = 0
    var enlarge = false
    var extend = false
    var extendGravity = Gravity.center
    var gravity = Gravity.center
    var dpr = 1.0
    var crop: Crop?
    var rotate = 0
    var blur = 0.0
    var sharpen = 0.0
    var background: RGBA?
    /// 0 means the server's default.
    var quality = 0
    var format: OutputFormat?
    var cacheBuster: String?
    /// Imagery's own option, not imgproxy's: `circle:1` masks the result to the largest
    /// centred circle, anti-aliased in alpha (so the output has alpha: PNG or WebP).
    var circle = false

    /// The largest output side after `dpr`, so one URL cannot ask for a gigapixel canvas.
    static let maximumSide = 8192

    static func parse(_ segments: [String]) throws(ServerError) -> ProcessingOptions {
        var options = ProcessingOptions()
        for segment in segments {
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            var arguments = Arguments(option: parts[0], values: Array(parts.dropFirst()))
            try options.apply(&arguments)
        }
        try options.validate()
        return options
    }

    private mutating func apply(_ arguments: inout Arguments) throws(ServerError) {
        switch arguments.option {
        case "resize", "rs":
            try arguments.expect(atMost: 5)
            if let type = try arguments.resizingType(at: 0) { resizingType = type }
            try applySize(arguments, from: 1)
        case "size", "s":
            try arguments.expect(atMost: 4)
            try applySize(arguments, from: 0)
        case "resizing_type", "rt":
            try arguments.expect(exactly: 1)
            resizingType = try arguments.resizingType(at: 0) ?? .fit
        case "width", "w":
            try arguments.expect(exactly: 1)
            width = try arguments.int(at: 0) ?? 0
        case "height", "h":
            try arguments.expect(exactly: 1)
            height = try arguments.int(at: 0) ?? 0
        case "enlarge", "el":
            try arguments.expect(atMost: 1)
            enlarge = try arguments.bool(at: 0) ?? false
        case "extend", "ex":
            try arguments.expect(atMost: 2)
            extend = try arguments.bool(at: 0) ?? false
            if let gravity = try arguments.gravity(from: 1, allowsSmart: false) { extendGravity = gravity }
        case "gravity", "g":
            try arguments.expect(atLeast: 1)
            gravity = try arguments.gravity(from: 0, allowsSmart: true) ?? .center
        case "dpr":
            try arguments.expect(exactly: 1)
            dpr = try arguments.double(at: 0) ?? 1
            guard dpr > 0, dpr <= 8 else { throw arguments.invalid("must be above 0 and at most 8") }
        case "crop", "c":
            try arguments.expect(atLeast: 2)
            let width = try arguments.double(at: 0) ?? 0, height = try arguments.double(at: 1) ?? 0
            guard (0...100_000).contains(width), (0...100_000).contains(height) else {
                throw arguments.invalid("sizes must be 0 to 100000")
            }
            let gravity = try arguments.gravity(from: 2, allowsSmart: true)
            crop = width == 0 && height == 0 ? nil : Crop(width: width, height: height, gravity: gravity)
        case "rotate", "rot":
            try arguments.expect(exactly: 1)
            rotate = try arguments.int(at: 0, allowsNegative: true) ?? 0
            guard rotate % 90 == 0 else { throw arguments.invalid("must be a multiple of 90") }
            rotate = ((rotate % 360) + 360) % 360
        case "blur", "bl":
            try arguments.expect(exactly: 1)
            blur = try arguments.double(at: 0) ?? 0
            guard blur >= 0, blur <= 100 else { throw arguments.invalid("sigma must be 0 to 100") }
        case "sharpen", "sh":
            try arguments.expect(exactly: 1)
            sharpen = try arguments.double(at: 0) ?? 0
            guard sharpen >= 0, sharpen <= 10 else { throw arguments.invalid("sigma must be 0 to 10") }
        case "background", "bg":
            background = try arguments.color()
        case "quality", "q":
            try arguments.expect(exactly: 1)
            quality = try arguments.int(at: 0) ?? 0
            guard quality <= 100 else { throw arguments.invalid("must be 0 to 100") }
        case "format", "f", "ext":
            try arguments.expect(exactly: 1)
            format = try arguments.format(at: 0)
        case "cachebuster", "cb":
            try arguments.expect(exactly: 1)
            cacheBuster = arguments.values[0]
        case "circle":
            try arguments.expect(exactly: 1)
            circle = try arguments.bool(at: 0) ?? false
        default:
            throw .badRequest("unknown option: \(arguments.option.prefix(40))")
        }
    }

    private mutating func applySize(_ arguments: Arguments, from start: Int) throws(ServerError) {
        if let width = try arguments.int(at: start) { self.width = width }
        if let height = try arguments.int(at: start + 1) { self.height = height }
        if let enlarge = try arguments.bool(at: start + 2) { self.enlarge = enlarge }
        if let extend = try arguments.bool(at: start + 3) { self.extend = extend }
    }

    private func validate() throws(ServerError) {
        let scaledWidth = Double(width) * dpr, scaledHeight = Double(height) * dpr
        guard scaledWidth <= Double(Self.maximumSide), scaledHeight <= Double(Self.maximumSide) else {
            throw .badRequest("size: at most \(Self.maximumSide) pixels a side, dpr included")
        }
    }

    /// The requested box in output pixels (`dpr` applied, rounded), 0 for "unset".
    var targetWidth: Int { Int((Double(width) * dpr).rounded()) }
    var targetHeight: Int { Int((Double(height) * dpr).rounded()) }
}

/// One option's arguments, with typed accessors that name the option when they refuse.
private struct Arguments {
    let option: String
    let values: [String]

    func invalid(_ why: String) -> ServerError {
        .badRequest("invalid option \(option.prefix(40)): \(why)")
    }

    func expect(exactly count: Int) throws(ServerError) {
        guard values.count == count else { throw invalid("takes \(count) argument\(count == 1 ? "" : "s")") }
    }

    func expect(atMost count: Int) throws(ServerError) {
        guard values.count <= count else { throw invalid("takes at most \(count) arguments") }
    }

    func expect(atLeast count: Int) throws(ServerError) {
        guard values.count >= count else { throw invalid("takes at least \(count) argument\(count == 1 ? "" : "s")") }
    }

    /// `nil` when the argument is absent or empty (keep the default).
    private func value(at index: Int) -> String? {
        index < values.count && !values[index].isEmpty ? values[index] : nil
    }

    func int(at index: Int, allowsNegative: Bool = false) throws(ServerError) -> Int? {
        guard let text = value(at: index) else { return nil }
        // A range check, not abs(): abs(Int.min) traps, and a URL can spell Int.min.
        guard let number = Int(text), (allowsNegative ? -100_000 : 0)...100_000 ~= number else {
            throw invalid("\(text.prefix(20)) is not a valid number")
        }
        return number
    }

    func double(at index: Int) throws(ServerError) -> Double? {
        guard let text = value(at: index) else { return nil }
        guard let number = Double(text), number.isFinite else { throw invalid("\(text.prefix(20)) is not a number") }
        return number
    }

    func bool(at index: Int) throws(ServerError) -> Bool? {
        guard let text = value(at: index) else { return nil }
        switch text.lowercased() {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw invalid("\(text.prefix(20)) is not a boolean")
        }
    }

    func resizingType(at index: Int) throws(ServerError) -> ProcessingOptions.ResizingType? {
        guard let text = value(at: index) else { return nil }
        guard let type = ProcessingOptions.ResizingType(rawValue: text) else {
            throw invalid("unknown resizing type \(text.prefix(20))")
        }
        return type
    }

    /// A gravity from `start` on: a name (`ce`, `noea`, `sm`), or `fp:x:y`. Offsets after a
    /// compass gravity are refused rather than ignored.
    func gravity(from start: Int, allowsSmart: Bool) throws(ServerError) -> Gravity? {
        guard let name = value(at: start) else { return nil }
        if name == "fp" {
            guard values.count == start + 3, let x = try double(at: start + 1), let y = try double(at: start + 2),
                  (0...1).contains(x), (0...1).contains(y)
            else { throw invalid("fp takes x and y from 0 to 1") }
            return .focus(x: x, y: y)
        }
        guard let gravity = Gravity(name: name), allowsSmart || gravity != .smart else {
            throw invalid("unknown gravity \(name.prefix(20))")
        }
        let offsets = values.dropFirst(start + 1)
        guard offsets.allSatisfy({ $0.isEmpty || Double($0) == 0 }) else { throw invalid("gravity offsets are not supported") }
        return gravity
    }

    /// `R:G:B` (0–255 each) or a hex colour (`ffffff`); no arguments turns the background off.
    func color() throws(ServerError) -> RGBA? {
        if values.isEmpty || (values.count == 1 && values[0].isEmpty) { return nil }
        if values.count == 3 {
            let channels = try values.indices.map { index throws(ServerError) -> UInt8 in
                guard let channel = try int(at: index), channel <= 255 else { throw invalid("channels are 0 to 255") }
                return UInt8(channel)
            }
            return RGBA(red: channels[0], green: channels[1], blue: channels[2])
        }
        guard values.count == 1, values[0].count == 6, let hex = UInt32(values[0], radix: 16) else {
            throw invalid("expected R:G:B or a hex colour")
        }
        return RGBA(red: UInt8(hex >> 16 & 0xFF), green: UInt8(hex >> 8 & 0xFF), blue: UInt8(hex & 0xFF))
    }

    func format(at index: Int) throws(ServerError) -> OutputFormat? {
        guard let text = value(at: index) else { return nil }
        guard let format = OutputFormat(extension: text) else { throw invalid("unsupported format \(text.prefix(20))") }
        return format
    }
}
