import Foundation
import Imagery
import ImageryCodecs

/// A format the server can write: JPEG and PNG always, WebP when built with the WebP trait.
struct OutputFormat: Equatable {
    let format: ImageFormat

    /// From an extension or `f:` value (`jpg`, `jpeg`, `png`, `webp`); `nil` for anything
    /// this build cannot encode.
    init?(extension name: String) {
        let formats: [String: ImageFormat] = ["jpg": .jpeg, "jpeg": .jpeg, "png": .png, "webp": .webp]
        guard let format = formats[name.lowercased()], ImageEncoder.supportedFormats.contains(format) else { return nil }
        self.format = format
    }

    init(_ format: ImageFormat) { self.format = format }

    /// With neither an extension nor `f:`: WebP when the client accepts it and the build
    /// writes it, otherwise JPEG for opaque images and PNG when alpha must survive.
    static func negotiated(accept: String?, hasTransparency: Bool) -> OutputFormat {
        if let accept, ImageEncoder.supportedFormats.contains(.webp), accepts(accept, "image/webp") {
            return OutputFormat(.webp)
        }
        return OutputFormat(hasTransparency ? .png : .jpeg)
    }

    /// Whether `accept` names `type` with a non-zero weight (`image/*` and `*/*` do not
    /// count: browsers send them for every image, WebP-capable or not).
    static func accepts(_ accept: String, _ type: String) -> Bool {
        for range in accept.split(separator: ",") {
            let parameters = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parameters.first?.lowercased() == type else { continue }
            let weight = parameters.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0
        }
        return false
    }
}
