import Imagery

extension ImgproxyOptions {
    /// The box and how the image meets it.
    static let sizeOptions: [ImgproxyOption<ImgproxyOptions>] = [
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
        ImgproxyOption(names: ["min-width", "mw"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.minWidth = try arguments.int(at: 0, in: 0...ImgproxyLimits.maximumOutputSide) ?? 0
        } write: { options in
            options.minWidth == 0 ? nil : [String(options.minWidth)]
        },
        ImgproxyOption(names: ["min-height", "mh"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.minHeight = try arguments.int(at: 0, in: 0...ImgproxyLimits.maximumOutputSide) ?? 0
        } write: { options in
            options.minHeight == 0 ? nil : [String(options.minHeight)]
        },
        ImgproxyOption(names: ["zoom", "z"]) { options, arguments throws(ImgproxyError) in
            // One factor for both axes, or one across and one down.
            try arguments.expect(atLeast: 1)
            try arguments.expect(atMost: 2)
            let range = ImgproxyLimits.minimumZoom...ImgproxyLimits.maximumZoom
            let why = "must be \(number(ImgproxyLimits.minimumZoom)) to \(number(ImgproxyLimits.maximumZoom))"
            options.zoomWidth = try arguments.double(at: 0, in: range, why) ?? 1
            options.zoomHeight = arguments.values.count == 2 ? try arguments.double(at: 1, in: range, why) ?? 1 : options.zoomWidth
        } write: { options in
            guard options.zoomWidth != 1 || options.zoomHeight != 1 else { return nil }
            return options.zoomWidth == options.zoomHeight
                ? [number(options.zoomWidth)] : [number(options.zoomWidth), number(options.zoomHeight)]
        },
        ImgproxyOption(names: ["dpr"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.dpr = try arguments.double(
                at: 0, in: ImgproxyLimits.minimumDPR...ImgproxyLimits.maximumDPR,
                "must be \(number(ImgproxyLimits.minimumDPR)) to \(number(ImgproxyLimits.maximumDPR))"
            ) ?? 1
        } write: { options in
            options.dpr == 1 ? nil : [number(options.dpr)]
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
        ImgproxyOption(names: ["extend_aspect_ratio", "exar", "extend_ar"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atMost: 4)
            options.extendsAspectRatio = try arguments.bool(at: 0) ?? false
            if let gravity = try arguments.gravity(from: 1, allowsSmart: false) { options.extendAspectRatioGravity = gravity }
        } write: { options in
            guard options.extendsAspectRatio || options.extendAspectRatioGravity != .center else { return nil }
            return [options.extendsAspectRatio ? "1" : "0"]
                + (options.extendAspectRatioGravity == .center ? [] : gravityArguments(options.extendAspectRatioGravity))
        },
    ]
}
