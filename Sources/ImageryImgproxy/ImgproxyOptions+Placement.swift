import Imagery

extension ImgproxyOptions {
    /// Where the window sits, what is cut, turned and added around.
    static let placementOptions: [ImgproxyOption<ImgproxyOptions>] = [
        ImgproxyOption(names: ["gravity", "g"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atLeast: 1)
            options.gravity = try arguments.gravity(from: 0, allowsSmart: true) ?? .center
        } write: { options in
            options.gravity == .center ? nil : gravityArguments(options.gravity)
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
        ImgproxyOption(names: ["trim", "t"]) { options, arguments throws(ImgproxyError) in
            // threshold, then an optional hex colour and "equal horizontal", "equal vertical".
            try arguments.expect(atLeast: 1)
            try arguments.expect(atMost: 4)
            guard let threshold = try arguments.double(at: 0, in: 0...255, "threshold must be 0 to 255") else {
                options.trim = nil
                return
            }
            options.trim = ImageProcessors.Trim(
                threshold: threshold, color: try arguments.hexColor(at: 1),
                equalHorizontal: try arguments.bool(at: 2) ?? false, equalVertical: try arguments.bool(at: 3) ?? false
            )
        } write: { options in
            guard let trim = options.trim else { return nil }
            return [number(trim.threshold), trim.color.map { Hex.encode([$0.red, $0.green, $0.blue]) } ?? "",
                    trim.equalHorizontal ? "1" : "0", trim.equalVertical ? "1" : "0"]
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
    ]
}
