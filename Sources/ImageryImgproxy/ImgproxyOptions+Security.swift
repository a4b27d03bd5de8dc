import Imagery

extension ImgproxyOptions {
    /// The security options: each only lowers one of the server's limits, and a URL may use
    /// them only where the server allows (`IMAGERY_ALLOW_SECURITY_OPTIONS`).
    static let securityOptions: [ImgproxyOption<ImgproxyOptions>] = [
        megapixels(["max_src_resolution", "msr"], \.sourceMegapixels),
        count(["max_src_file_size", "msfs"], \.sourceBytes),
        count(["max_animation_frames", "maf"], \.animationFrames),
        megapixels(["max_animation_frame_resolution", "mafr"], \.animationFrameMegapixels),
        count(["max_result_dimension", "mrd"], \.resultDimension),
    ]

    /// A limit in megapixels; 0 keeps the server's.
    private static func megapixels(
        _ names: [String], _ limit: any WritableKeyPath<ImgproxyOptions.SecurityLimits, Double> & Sendable
    ) -> ImgproxyOption<ImgproxyOptions> {
        ImgproxyOption(names: names) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.security[keyPath: limit] = try arguments.double(at: 0, in: 0...1_000_000, "megapixels must be 0 to 1000000") ?? 0
        } write: { options in
            options.security[keyPath: limit] == 0 ? nil : [number(options.security[keyPath: limit])]
        }
    }

    /// A limit in bytes, frames or pixels; 0 keeps the server's.
    private static func count(
        _ names: [String], _ limit: any WritableKeyPath<ImgproxyOptions.SecurityLimits, Int> & Sendable
    ) -> ImgproxyOption<ImgproxyOptions> {
        ImgproxyOption(names: names) { options, arguments throws(ImgproxyError) in
            try arguments.expect(exactly: 1)
            options.security[keyPath: limit] = try arguments.int(at: 0, in: 0...Int(Int32.max)) ?? 0
        } write: { options in
            options.security[keyPath: limit] == 0 ? nil : [String(options.security[keyPath: limit])]
        }
    }
}
