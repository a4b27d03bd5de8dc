import Imagery

extension ImgproxyOptions {
    /// How the quality is chosen per image.
    static let qualityOptions: [ImgproxyOption<ImgproxyOptions>] = [
        ImgproxyOption(names: ["autoquality", "aq"]) { options, arguments throws(ImgproxyError) in
            try arguments.expect(atMost: 5)
            var quality = ImgproxyAutoQuality()
            if arguments.values.indices.contains(0), !arguments.values[0].isEmpty {
                guard let method = ImgproxyAutoQuality.Method(rawValue: arguments.values[0]) else {
                    throw arguments.invalid("\(arguments.values[0].prefix(20)) is not none, size, dssim or ml")
                }
                quality.method = method
            }
            quality.target = try arguments.double(at: 1, in: 0...Double(Int32.max), "the target must be a number")
            quality.minimumQuality = try arguments.int(at: 2, in: 1...100)
            quality.maximumQuality = try arguments.int(at: 3, in: 1...100)
            quality.allowedError = try arguments.double(at: 4, in: 0...1, "the allowed error must be 0 to 1")
            if let refusal = quality.refusal { throw arguments.invalid(refusal) }
            options.autoQuality = quality == ImgproxyAutoQuality() ? nil : quality
        } write: { options in
            guard let quality = options.autoQuality else { return nil }
            var arguments = [
                quality.method?.rawValue ?? "", quality.target.map(number) ?? "", quality.minimumQuality.map(String.init) ?? "",
                quality.maximumQuality.map(String.init) ?? "", quality.allowedError.map(number) ?? "",
            ]
            while arguments.last == "" { arguments.removeLast() }
            return arguments.isEmpty ? nil : arguments
        },
    ]
}
