import Crypto
import Foundation
import Imagery
import ImageryCodecs
import ImageryHTTPClient
import ImageryImgproxy

extension ServerConfiguration {
    /// The presets of `text` (split at ``presetsSeparator`` and at line ends, which an
    /// environment file's quoted value may hold) and of the file at `path` (one a line), as
    /// imgproxy reads `IMGPROXY_PRESETS` and `IMGPROXY_PRESETS_PATH`.
    func presetEntries(
        _ text: String?, path: String?, failure: (String) -> ServerSetupError
    ) throws(ServerSetupError) -> [String] {
        var entries = (text ?? "").components(separatedBy: presetsSeparator).flatMap { $0.split(whereSeparator: \.isNewline).map(String.init) }
        if let path {
            // Read through a handle: a device or a pipe has no size to read up to.
            let handle = FileHandle(forReadingAtPath: path)
            defer { try? handle?.close() }
            guard let handle, let file = try? handle.readToEnd() ?? Data(), let lines = String(data: file, encoding: .utf8) else {
                throw failure("\(path) could not be read as UTF-8 text")
            }
            entries += lines.split(whereSeparator: \.isNewline).map(String.init)
        }
        return entries
    }

    /// `--format-quality` as qualities by format.
    func parseFormatQualities() throws(ServerSetupError) -> [ImageFormat: Int] {
        try Self.qualities(byFormat: formatQuality, failure: ServerSetupError.formatQuality)
    }

    /// `format=quality` pairs (`--format-quality`, `--autoquality-format-min` and `-max`) as
    /// qualities by format.
    static func qualities(byFormat pairs: [String], failure: (String) -> ServerSetupError) throws(ServerSetupError) -> [ImageFormat: Int] {
        var qualities: [ImageFormat: Int] = [:]
        for pair in pairs {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let format = ImageFormat(imgproxyExtension: parts[0]), let quality = Int(parts[1]), (1...100).contains(quality) else {
                throw failure("\(pair.prefix(40)) is not format=quality (1 to 100)")
            }
            qualities[format] = quality
        }
        return qualities
    }

    /// What `aq` leaves unsaid, from `--autoquality-*`, checked as a URL's `aq` is.
    func autoQualityDefaults() throws(ServerSetupError) -> ImgproxyAutoQuality.Defaults {
        let quality = ImgproxyAutoQuality(
            method: autoQualityMethod, target: autoQualityTarget, minimumQuality: autoQualityMinimum,
            maximumQuality: autoQualityMaximum, allowedError: autoQualityAllowedError
        )
        if let refusal = quality.refusal {
            throw .setting(autoQualityMethod == .size ? "autoquality-target" : "autoquality-min", refusal)
        }
        return ImgproxyAutoQuality.Defaults(
            quality: quality,
            formatMinimum: try Self.qualities(byFormat: autoQualityFormatMinimum) { .setting("autoquality-format-min", $0) },
            formatMaximum: try Self.qualities(byFormat: autoQualityFormatMaximum) { .setting("autoquality-format-max", $0) },
            maximumMegapixels: autoQualityMaximumResolution
        )
    }

    /// Reads the images the settings name, once, before the server is made: the watermark and
    /// the fallback image, each from the one source given, decoded and kept in ``watermark`` and
    /// ``fallbackImage`` (a URL is fetched once, through the same source guard as images).
    ///
    /// - Throws: ``ServerSetupError/watermark(_:)`` or ``ServerSetupError/setting(_:_:)`` (a
    ///   fallback setting) when one cannot be read, fetched or decoded.
    package mutating func loadImages() async throws(ServerSetupError) {
        if watermark == nil, let bytes = try await watermarkBytes() {
            watermark = try Self.watermark(from: bytes, opacity: watermarkOpacity)
        }
        if fallbackImage.image == nil { fallbackImage.image = try await readFallbackImage() }
    }

    /// The watermark from a path or base64 data, which need no waiting; `nil` for a URL.
    func localWatermark() throws(ServerSetupError) -> ImgproxyPlan.Watermark? {
        if let watermark { return watermark }
        if watermarkURL != nil { throw .watermark("--watermark-url is fetched by loadImages() before the server is made") }
        guard watermarkPath != nil || watermarkData != nil else { return nil }
        var copy = self
        copy.watermarkURL = nil
        guard let bytes = try copy.readWatermark() else { return nil }
        return try Self.watermark(from: bytes, opacity: watermarkOpacity)
    }

    private func watermarkBytes() async throws(ServerSetupError) -> [UInt8]? {
        guard let watermarkURL else { return try readWatermark() }
        return try await fetchStartImage(watermarkURL) { why in
            .watermark("--watermark-url" + (why.hasPrefix("must") || why.hasPrefix("could not") ? " " : ": ") + why)
        }
    }

    private func readWatermark() throws(ServerSetupError) -> [UInt8]? {
        if let watermarkPath {
            guard let data = FileManager.default.contents(atPath: watermarkPath) else { throw .watermark("\(watermarkPath) could not be read") }
            return [UInt8](data)
        }
        if let watermarkData {
            guard let data = Data(base64Encoded: watermarkData, options: .ignoreUnknownCharacters) else {
                throw .watermark("--watermark-data is not base64")
            }
            return [UInt8](data)
        }
        return nil
    }

    private static func watermark(from bytes: [UInt8], opacity: Double) throws(ServerSetupError) -> ImgproxyPlan.Watermark {
        var options = DecodingOptions()
        options.maximumPixelCount = 16_000_000   // a watermark is drawn on every image: keep it small
        let image: Bitmap
        do {
            image = try ImageDecoder().decode(bytes, options: options)
        } catch {
            throw .watermark("not an image this server reads (\(error))")
        }
        let identity = Base64URL.encode(Array(SHA256.hash(data: bytes)).prefix(12))
        return ImgproxyPlan.Watermark(image: image, identity: identity, opacity: opacity)
    }
}
