import Crypto
import Foundation
import Imagery
import ImageryCodecs
import ImageryHTTPClient
import ImageryImgproxy

extension ServerConfiguration {
    /// The presets from `--presets` and `--presets-path`, as one text.
    func readPresets() throws(ServerSetupError) -> String {
        var text = presets ?? ""
        if let presetsPath {
            // Read through a handle: a device or a pipe has no size to read up to.
            let handle = FileHandle(forReadingAtPath: presetsPath)
            defer { try? handle?.close() }
            guard let handle, let file = try? handle.readToEnd() ?? Data(), let lines = String(data: file, encoding: .utf8) else {
                throw .presetsPath("\(presetsPath) could not be read as UTF-8 text")
            }
            text += "\n" + lines
        }
        return text
    }

    /// `--format-quality` as qualities by format.
    func parseFormatQualities() throws(ServerSetupError) -> [ImageFormat: Int] {
        var qualities: [ImageFormat: Int] = [:]
        for pair in formatQuality {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let format = ImageFormat(imgproxyExtension: parts[0]), let quality = Int(parts[1]), (1...100).contains(quality) else {
                throw .formatQuality("\(pair.prefix(40)) is not format=quality (1 to 100)")
            }
            qualities[format] = quality
        }
        return qualities
    }

    /// Reads the images the settings name, once, before the server is made: the watermark from
    /// the one source given, decoded and kept in ``watermark`` (a URL is fetched once, through
    /// the same source guard as images).
    ///
    /// - Throws: ``ServerSetupError/watermark(_:)`` when it cannot be read, fetched or decoded.
    package mutating func loadImages() async throws(ServerSetupError) {
        guard watermark == nil, let bytes = try await watermarkBytes() else { return }
        watermark = try Self.watermark(from: bytes, opacity: watermarkOpacity)
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
        guard let url = URL(string: watermarkURL), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw .watermark("--watermark-url must be an http or https URL")
        }
        do {
            try sources.checkHop(url)
        } catch {
            throw .watermark("--watermark-url: \(error)")
        }
        let loader = HTTPClientDataLoader(configuration: loading)
        let result: Result<[UInt8], DataLoadingError>
        do {
            result = .success(try await loader.loadData(for: .url(url), progress: { _ in }))
        } catch {
            result = .failure(error)
        }
        try? await loader.shutdown()
        switch result {
        case let .success(bytes): return bytes
        case let .failure(error): throw .watermark("--watermark-url could not be fetched: \(error)")
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
