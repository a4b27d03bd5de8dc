import ImageryImgproxy

extension ServerSettings {
    /// imgproxy Pro's autoquality, given away: what a URL's `aq` leaves unsaid, and with a
    /// method other than `none`, what every JPEG, WebP, AVIF, HEIC and JPEG XL still gets unasked. Every one
    /// changes bytes, so every one enters the settings digest.
    static let autoQuality: [ServerSetting] = [
        ServerSetting(
            "autoquality-method", .text,
            "How each image's quality is chosen where its URL has no aq: none (the fixed quality), size (the highest quality whose body fits --autoquality-target bytes), dssim (the lowest quality whose DSSIM is within --autoquality-allowed-error of --autoquality-target), ml (searched as dssim).",
            imgproxy: .pro("AUTOQUALITY_METHOD"), show: { $0.autoQualityMethod.rawValue }
        ) { configuration, value throws(SettingError.Reason) in
            guard case let .text(text) = value, let method = ImgproxyAutoQuality.Method(rawValue: text.lowercased()) else {
                throw .invalid("must be none, size, dssim or ml")
            }
            configuration.autoQualityMethod = method
        }.changing(.bytes),
        number("autoquality-target", "DSSIM for dssim and ml ((1 − SSIM) / 2 of the luma, so not imgproxy's scale), or bytes for size.", \.autoQualityTarget, in: 0...Double(Int32.max), imgproxy: .pro("AUTOQUALITY_TARGET")).changing(.bytes),
        .whole("autoquality-min", "The lowest quality autoquality may choose.", \.autoQualityMinimum, in: 1...100, imgproxy: .pro("AUTOQUALITY_MIN")).changing(.bytes),
        .whole("autoquality-max", "The highest quality autoquality may choose.", \.autoQualityMaximum, in: 1...100, imgproxy: .pro("AUTOQUALITY_MAX")).changing(.bytes),
        .list("autoquality-format-min", "The lowest quality per format, format=quality, over --autoquality-min (our AVIF scale is not libvips's).", \.autoQualityFormatMinimum, imgproxy: .pro("AUTOQUALITY_FORMAT_MIN")).changing(.bytes),
        .list("autoquality-format-max", "The highest quality per format, format=quality, over --autoquality-max.", \.autoQualityFormatMaximum, imgproxy: .pro("AUTOQUALITY_FORMAT_MAX")).changing(.bytes),
        number("autoquality-allowed-error", "How far from the DSSIM target a result may be (dssim and ml).", \.autoQualityAllowedError, in: 0...0.999, imgproxy: .pro("AUTOQUALITY_ALLOWED_ERROR")).changing(.bytes),
        number("autoquality-max-resolution", "Megapixels of a result above which autoquality is skipped; 0 for none.", \.autoQualityMaximumResolution, in: 0...1_000_000, imgproxy: .pro("AUTOQUALITY_MAX_RESOLUTION")).changing(.bytes),
    ]

    /// A number in `range`.
    private static func number(
        _ name: String, _ help: String, _ path: any WritableKeyPath<ServerConfiguration, Double> & Sendable,
        in range: ClosedRange<Double>, imgproxy: ServerSetting.ImgproxyName
    ) -> ServerSetting {
        ServerSetting(name, .number, help, imgproxy: imgproxy, show: { ServerSetting.number($0[keyPath: path]) }) { configuration, value throws(SettingError.Reason) in
            guard case let .number(number) = value, range.contains(number) else {
                throw .outOfRange("\(ServerSetting.number(range.lowerBound))...\(ServerSetting.number(range.upperBound))")
            }
            configuration[keyPath: path] = number
        }
    }
}
