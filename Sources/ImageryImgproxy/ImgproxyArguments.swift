import Imagery

/// One option segment's arguments, with typed accessors that name the option when they refuse.
struct ImgproxyArguments {
    /// The option's name as the URL wrote it.
    let option: String
    let values: [String]

    /// Splits `rs:fill:300:200` into the name and its arguments, at `separator`
    /// (`IMAGERY_ARGUMENTS_SEPARATOR`).
    init(segment: some StringProtocol, separator: Character = ":") {
        let parts = segment.split(separator: separator, omittingEmptySubsequences: false)
        option = String(parts[0])
        values = parts[1...].map { String($0) }
    }

    func invalid(_ why: String) -> ImgproxyError {
        ImgproxyError(.invalidOption, "invalid option \(option.prefix(40)): \(why)")
    }

    func expect(exactly count: Int) throws(ImgproxyError) {
        guard values.count == count else { throw invalid("takes \(count) argument\(count == 1 ? "" : "s")") }
    }

    func expect(atMost count: Int) throws(ImgproxyError) {
        guard values.count <= count else { throw invalid("takes at most \(count) arguments") }
    }

    func expect(atLeast count: Int) throws(ImgproxyError) {
        guard values.count >= count else { throw invalid("takes at least \(count) argument\(count == 1 ? "" : "s")") }
    }

    /// `nil` when the argument is absent or empty (keep the default).
    private func value(at index: Int) -> String? {
        index < values.count && !values[index].isEmpty ? values[index] : nil
    }

    /// A whole number in `range`; `nil` when absent.
    func int(at index: Int, in range: ClosedRange<Int> = 0...ImgproxyLimits.maximumDimension) throws(ImgproxyError) -> Int? {
        guard let text = value(at: index) else { return nil }
        // A range check, not abs(): abs(Int.min) traps, and a URL can spell Int.min.
        guard let number = Int(text), range ~= number else { throw invalid("\(text.prefix(20)) is not a valid number") }
        return number
    }

    /// A finite number in `range`; `nil` when absent.
    func double(at index: Int, in range: ClosedRange<Double>, _ why: String) throws(ImgproxyError) -> Double? {
        guard let text = value(at: index) else { return nil }
        guard let number = Double(text), number.isFinite else { throw invalid("\(text.prefix(20)) is not a number") }
        guard range ~= number else { throw invalid(why) }
        return number
    }

    func bool(at index: Int) throws(ImgproxyError) -> Bool? {
        guard let text = value(at: index) else { return nil }
        switch text.lowercased() {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw invalid("\(text.prefix(20)) is not a boolean")
        }
    }

    func resizingType(at index: Int) throws(ImgproxyError) -> ImgproxyOptions.ResizingType? {
        guard let text = value(at: index) else { return nil }
        guard let type = ImgproxyOptions.ResizingType(rawValue: text) else { throw invalid("unknown resizing type \(text.prefix(20))") }
        return type
    }

    /// A gravity from `start` on: a name (`ce`, `noea`, `sm`) with optional x and y offsets
    /// in pixels (`no:0:20`), or `fp:x:y`.
    func gravity(from start: Int, allowsSmart: Bool) throws(ImgproxyError) -> Gravity? {
        guard let name = value(at: start) else { return nil }
        if name == "fp" {
            guard values.count == start + 3, let x = try double(at: start + 1, in: 0...1, "fp takes x and y from 0 to 1"),
                  let y = try double(at: start + 2, in: 0...1, "fp takes x and y from 0 to 1")
            else { throw invalid("fp takes x and y from 0 to 1") }
            return .focus(x: x, y: y)
        }
        guard let gravity = Gravity(name: name), allowsSmart || gravity != .smart else { throw invalid("unknown gravity \(name.prefix(20))") }
        guard values.count <= start + 3 else { throw invalid("a gravity takes at most x and y offsets") }
        let limit = Double(ImgproxyLimits.maximumDimension), why = "offsets must be -\(ImgproxyLimits.maximumDimension) to \(ImgproxyLimits.maximumDimension)"
        let x = try double(at: start + 1, in: -limit...limit, why) ?? 0
        let y = try double(at: start + 2, in: -limit...limit, why) ?? 0
        guard x != 0 || y != 0 else { return gravity }
        guard gravity != .smart else { throw invalid("smart gravity takes no offsets") }
        return .offset(gravity, x: x, y: y)
    }

    /// `R:G:B` (0–255 each) or a hex colour (`ffffff`); no arguments turns the background off.
    func color() throws(ImgproxyError) -> RGBA? {
        if values.isEmpty || (values.count == 1 && values[0].isEmpty) { return nil }
        if values.count == 3 {
            var channels: [UInt8] = []
            for index in 0..<3 {
                guard let channel = try int(at: index, in: 0...255) else { throw invalid("channels are 0 to 255") }
                channels.append(UInt8(channel))
            }
            return RGBA(red: channels[0], green: channels[1], blue: channels[2])
        }
        guard values.count == 1, values[0].count == 6, let hex = Hex.decode(values[0]) else {
            throw invalid("expected R:G:B or a hex colour")
        }
        return RGBA(red: hex[0], green: hex[1], blue: hex[2])
    }

    /// A hex colour (`ff00aa`) at `index`; `nil` when absent.
    func hexColor(at index: Int) throws(ImgproxyError) -> RGBA? {
        guard let text = value(at: index) else { return nil }
        guard text.count == 6, let hex = Hex.decode(text) else { throw invalid("expected a hex colour") }
        return RGBA(red: hex[0], green: hex[1], blue: hex[2])
    }

    func format(at index: Int) throws(ImgproxyError) -> ImageFormat? {
        guard let text = value(at: index) else { return nil }
        guard let format = ImageFormat(imgproxyExtension: text) else {
            throw ImgproxyError(.unsupportedFormat, "invalid option \(option.prefix(40)): unsupported format \(text.prefix(20))")
        }
        return format
    }
}

extension ImageFormat {
    /// The format an imgproxy extension or `format` value names (`jpg`, `jpeg`, `png`, `webp` …),
    /// whether or not this build writes it; `nil` for a name imgproxy does not use.
    public init?(imgproxyExtension name: some StringProtocol) {
        switch name.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "gif": self = .gif
        case "avif": self = .avif
        case "heic": self = .heic
        case "jxl": self = .jxl
        case "tiff": self = .tiff
        case "bmp": self = .bmp
        case "ico": self = .ico
        case "svg": self = .svg
        default: return nil
        }
    }

    /// The extension imgproxy URLs write for this format (`jpg` for JPEG).
    public var imgproxyExtension: String { self == .jpeg ? "jpg" : rawValue }
}
