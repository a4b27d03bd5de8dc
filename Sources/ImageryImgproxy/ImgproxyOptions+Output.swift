import Imagery

extension ImgproxyOptions {
    /// How the result is written, or whether it is processed at all.
    static let outputOptions: [ImgproxyOption<ImgproxyOptions>] = [
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
            options.bestFormat = arguments.values[0] == "best"
            options.format = options.bestFormat ? nil : try arguments.format(at: 0)
        } write: { options in
            options.bestFormat ? ["best"] : options.format.map { [$0.imgproxyExtension] }
        },
        ImgproxyOption(names: ["skip_processing", "skp"]) { options, arguments throws(ImgproxyError) in
            var formats: Set<ImageFormat> = []
            for index in arguments.values.indices {
                if let format = try arguments.format(at: index) { formats.insert(format) }
            }
            options.skipProcessing = formats
        } write: { options in
            options.skipProcessing.isEmpty ? nil : options.skipProcessing.map(\.imgproxyExtension).sorted()
        },
        ImgproxyOption(names: ["raw"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.raw = try arguments.bool(at: 0) ?? false
        } write: { options in
            options.raw ? ["1"] : nil
        },
    ]
}
