import Foundation
import Imagery
import ImageryCodecs

/// Real images shared with the codec tests (licences in that folder's MANIFEST.tsv).
package enum Fixtures {
    package static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ImageryCodecsTests/Resources")

    package static func bytes(_ name: String) -> [UInt8] {
        // A missing fixture is a broken checkout: fail loudly.
        try! [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
    }

    package static let rocket = bytes("jpeg_small_base_rocket_640x427.jpg")      // 640x427 JPEG
    package static let meadow = bytes("jpeg_med_prog_greenmeadow_1280x1024.jpg") // 1280x1024 progressive
    package static let logo = bytes("png_rgba_logo_500x500.png")                 // 500x500 RGBA PNG
    package static let gif = bytes("gif_static_objects_256x171.gif")
    package static let all = [rocket, meadow, logo, gif]

    package static func pipeline(
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
