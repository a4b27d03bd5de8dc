import Imagery

extension ImgproxyOptions {
    /// Filters and what is drawn over the result.
    static let effectOptions: [ImgproxyOption<ImgproxyOptions>] = [
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
        ImgproxyOption(names: ["watermark", "wm"]) { options, arguments throws(ImgproxyError) in
            // opacity, then a position (a compass gravity or `re` to tile), x and y offsets, scale.
            try arguments.expect(atLeast: 1)
            try arguments.expect(atMost: 5)
            let opacity = try arguments.double(at: 0, in: 0...1, "opacity must be 0 to 1") ?? 0
            guard opacity > 0 else {
                options.watermark = nil
                return
            }
            let limit = Double(ImgproxyLimits.maximumDimension), why = "offsets must be -\(ImgproxyLimits.maximumDimension) to \(ImgproxyLimits.maximumDimension)"
            let x = try arguments.double(at: 2, in: -limit...limit, why) ?? 0
            let y = try arguments.double(at: 3, in: -limit...limit, why) ?? 0
            var position: Gravity? = .center
            if arguments.values.count > 1, !arguments.values[1].isEmpty {
                if arguments.values[1] == "re" {
                    position = nil
                } else {
                    guard let gravity = Gravity(name: arguments.values[1]), gravity != .smart else {
                        throw arguments.invalid("unknown position \(arguments.values[1].prefix(20))")
                    }
                    position = gravity
                }
            }
            if let base = position, x != 0 || y != 0 { position = .offset(base, x: x, y: y) }
            let scale = try arguments.double(at: 4, in: 0...1, "scale must be 0 to 1") ?? 0
            options.watermark = ImgproxyOptions.Watermark(position: position, opacity: opacity, scale: scale)
        } write: { options in
            guard let watermark = options.watermark else { return nil }
            var arguments = [number(watermark.opacity)]
            switch watermark.position {
            case nil: arguments += ["re", "0", "0"]
            case let .offset(base, x, y)?: arguments += [base.shortName ?? "ce", number(x), number(y)]
            case let position?: arguments += [position.shortName ?? "ce", "0", "0"]
            }
            return arguments + [number(watermark.scale)]
        },
    ]
}
