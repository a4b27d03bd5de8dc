import Crypto
import Foundation
import Imagery
import ImageryCodecs
import ImageryHTTPClient
import ImageryImgproxy

/// imgproxy's fallback image: what is served, processed as the URL asks, when the source cannot
/// be had (the origin answered an error, timed out or could not be reached, or the source is too
/// large), in place of the error. Never kept as that source's answer by any tier.
package struct FallbackImageSettings: Sendable {
    /// `--fallback-image-data`: the image, base64.
    package var data: String?
    /// `--fallback-image-path`: a file.
    package var path: String?
    /// `--fallback-image-url`: fetched once at start, through the source guard.
    package var url: String?
    /// `--fallback-image-http-code`: the status it is served with; 0 keeps the failure's.
    /// Default: 200, as imgproxy's.
    package var httpCode = 200
    /// `--fallback-image-ttl`: its `max-age`, in seconds; 0 follows `--cache-control`, as
    /// imgproxy follows its TTL. Default: 60, not the year images get, so that no cache in front
    /// keeps the stand-in long after the source is back.
    package var ttl = 60
    /// The image, once read from one of the three (see `loadImages()`).
    package var image: FallbackImage?

    package init() {}

    /// Whether one of the three sources is given.
    var isConfigured: Bool { data != nil || path != nil || url != nil }
}

/// A fallback image as read at start: its bytes, decoded once to check them, and a digest that
/// names it to the pipeline.
package struct FallbackImage: Sendable {
    let bytes: [UInt8]
    let identity: String

    /// The pipeline source of the fallback: the pipeline caches its decodes by this name, never
    /// by the failed source's.
    var source: ImageSource {
        .bytes(id: "fallback:" + identity, bytes)
    }
}

extension ServerConfiguration {
    /// Reads the fallback image from the one source given: a URL through the source guard, like
    /// the watermark; it must decode.
    ///
    /// - Throws: ``ServerSetupError/setting(_:_:)`` naming the setting.
    func readFallbackImage() async throws(ServerSetupError) -> FallbackImage? {
        let settings = fallbackImage
        let bytes: [UInt8], setting: String
        if let path = settings.path {
            setting = "fallback-image-path"
            guard let data = FileManager.default.contents(atPath: path) else { throw .setting(setting, "\(path) could not be read") }
            bytes = [UInt8](data)
        } else if let data = settings.data {
            setting = "fallback-image-data"
            guard let decoded = Data(base64Encoded: data, options: .ignoreUnknownCharacters) else { throw .setting(setting, "is not base64") }
            bytes = [UInt8](decoded)
        } else if let url = settings.url {
            setting = "fallback-image-url"
            bytes = try await fetchStartImage(url) { .setting(setting, $0) }
        } else {
            return nil
        }
        // It is loaded as sources are, so it must fit their limit.
        guard bytes.count <= maximumSourceBytes else { throw .setting(setting, "is \(bytes.count) bytes, over --max-source-bytes") }
        var options = DecodingOptions()
        options.maximumPixelCount = maximumSourcePixels
        do {
            _ = try ImageDecoder().decode(bytes, options: options)
        } catch {
            throw .setting(setting, "not an image this server reads (\(error))")
        }
        return FallbackImage(bytes: bytes, identity: Base64URL.encode(Array(SHA256.hash(data: bytes)).prefix(12)))
    }

    /// An image a setting names by URL, fetched once at start through the same source guard and
    /// size limit as sources.
    func fetchStartImage(_ text: String, failure: (String) -> ServerSetupError) async throws(ServerSetupError) -> [UInt8] {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw failure("must be an http or https URL")
        }
        do {
            try sources.checkHop(url)
        } catch {
            throw failure("\(error)")
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
        case let .failure(error): throw failure("could not be fetched: \(error)")
        }
    }
}
