import Imagery

/// `autoquality`/`aq`: how a URL asks the server to choose its quality, image by image, as
/// imgproxy Pro's autoquality does (given away here): `aq:%method:%target:%min:%max:%error`,
/// every argument optional and, left out, the server's own (`IMAGERY_AUTOQUALITY_*`).
///
/// ```swift
/// let options = try ImgproxyOptions(segments: ["aq:dssim:0.02:70:80:0.002"])
/// options.autoQuality?.method          // .dssim
/// options.autoQuality?.maximumQuality  // 80
/// ```
public struct ImgproxyAutoQuality: Sendable, Hashable {
    /// What the quality is chosen for.
    public enum Method: String, Sendable, Hashable, CaseIterable {
        /// A fixed quality: the URL's or the server's.
        case none
        /// The highest quality whose result fits ``target`` bytes.
        case size
        /// The lowest quality whose DSSIM ((1 − SSIM) / 2 of the luma) is within
        /// ``allowedError`` of ``target``.
        case dssim
        /// imgproxy's neural network's prediction; without a model, as imgproxy does, `dssim`.
        case ml
    }

    public var method: Method?
    /// DSSIM, or bytes for `size`.
    public var target: Double?
    public var minimumQuality: Int?
    public var maximumQuality: Int?
    public var allowedError: Double?

    /// Every argument left to the server.
    public init(method: Method? = nil, target: Double? = nil, minimumQuality: Int? = nil, maximumQuality: Int? = nil, allowedError: Double? = nil) {
        self.method = method
        self.target = target
        self.minimumQuality = minimumQuality
        self.maximumQuality = maximumQuality
        self.allowedError = allowedError
    }

    /// The same with what `self` leaves unsaid taken from `defaults`.
    public func filled(from defaults: ImgproxyAutoQuality) -> ImgproxyAutoQuality {
        ImgproxyAutoQuality(
            method: method ?? defaults.method, target: target ?? defaults.target, minimumQuality: minimumQuality ?? defaults.minimumQuality,
            maximumQuality: maximumQuality ?? defaults.maximumQuality, allowedError: allowedError ?? defaults.allowedError
        )
    }

    /// Why these arguments cannot be searched with, or `nil`: a target out of range for its
    /// method, a quality outside 1–100, a minimum above the maximum.
    public var refusal: String? {
        if let target {
            switch method {
            case .dssim?, .ml?: if !(target > 0 && target < 1) { return "a DSSIM target must be above 0 and below 1" }
            case .size?: if !(target >= 1 && target <= Double(Int32.max)) || target != target.rounded() { return "a size target must be a whole number of bytes" }
            default: if !(target > 0) { return "the target must be above 0" }
            }
        }
        for quality in [minimumQuality, maximumQuality].compactMap(\.self) where !(1...100).contains(quality) {
            return "qualities must be 1 to 100"
        }
        if let minimumQuality, let maximumQuality, minimumQuality > maximumQuality {
            return "the minimum quality \(minimumQuality) is above the maximum \(maximumQuality)"
        }
        if let allowedError, !(allowedError >= 0 && allowedError < 1) { return "the allowed error must be at least 0 and below 1" }
        return nil
    }
}

extension ImgproxyAutoQuality {
    /// The server's autoquality settings (`IMGPROXY_AUTOQUALITY_*`): what a URL's `aq` leaves
    /// unsaid, whether an image gets autoquality unasked (a method other than `none`), the
    /// per-format ranges between a URL's range and the plain one, and the resolution above
    /// which autoquality is skipped.
    package struct Defaults: Sendable, Hashable {
        package var quality: ImgproxyAutoQuality
        package var formatMinimum: [ImageFormat: Int]
        package var formatMaximum: [ImageFormat: Int]
        /// 0 for no limit.
        package var maximumMegapixels: Double

        package init(
            quality: ImgproxyAutoQuality = ImgproxyAutoQuality(), formatMinimum: [ImageFormat: Int] = [:],
            formatMaximum: [ImageFormat: Int] = [:], maximumMegapixels: Double = 0
        ) {
            self.quality = quality
            self.formatMinimum = formatMinimum
            self.formatMaximum = formatMaximum
            self.maximumMegapixels = maximumMegapixels
        }
    }
}
