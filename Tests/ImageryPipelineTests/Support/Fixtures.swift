import Foundation
import Imagery
import ImageryCodecs

/// Real images shared with the codec tests (licences in that folder's MANIFEST.tsv).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ImageryCodecsTests/Resources")

    static func bytes(_ name: String) -> [UInt8] {
        // A missing fixture is a broken checkout: fail loudly.
        try! [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
    }

    static let rocket = bytes("jpeg_small_base_rocket_640x427.jpg")      // 640x427 JPEG
    static let meadow = bytes("jpeg_med_prog_greenmeadow_1280x1024.jpg") // 1280x1024 progressive
    static let logo = bytes("png_rgba_logo_500x500.png")                 // 500x500 RGBA PNG
    static let gif = bytes("gif_static_objects_256x171.gif")
    static let all = [rocket, meadow, logo, gif]

    static func pipeline(
        loader: any DataLoading = DataLoader(),
        cache: ImageCache? = ImageCache(),
        downloads: Int = 6,
        decodes: Int = 2
    ) -> ImagePipeline {
        ImagePipeline(configuration: .standard.with {
            $0.dataLoader = loader
            $0.imageCache = cache
            $0.maximumConcurrentDownloads = downloads
            $0.maximumConcurrentDecodes = decodes
        })
    }
}
