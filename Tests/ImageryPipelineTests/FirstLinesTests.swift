import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// A Nuke user's first lines, compiled against `Imagery` and `ImageryCodecs` as an app depends
/// on those products, and run.
@Suite(.timeLimit(.minutes(10)))
struct FirstLinesTests {
    @Test("ImagePipeline.shared decodes with no setup, and image(for:) returns the image")
    func nukeFirstLines() async throws {
        let url = Fixtures.directory.appendingPathComponent("jpeg_small_base_rocket_640x427.jpg")

        let image = try await ImagePipeline.shared.image(for: url)

        #expect(image.width == 640 && image.height == 427)
        let response = try await ImagePipeline.shared.response(for: url)
        #expect(response.origin == .memory && response.image.width == 640)
    }

    @Test("The platform's default configuration decodes JPEG, PNG and GIF", arguments: [
        ("jpeg_small_base_rocket_640x427.jpg", 640), ("png_gray_camera_512x512.png", 512), ("gif_static_objects_256x171.gif", 256),
    ])
    func platformDefaultDecodes(name: String, width: Int) async throws {
        let pipeline = ImagePipeline(configuration: .platformDefault)
        let image = try await pipeline.image(for: Fixtures.directory.appendingPathComponent(name))
        #expect(image.width == width)
    }

    #if !canImport(ImageIO)
    @Test("On Linux the core finds ImageryCodecs' provider by its mangled name")
    func lookup() throws {
        let found = try #require(StandardCodecsLookup.linked)
        #expect(ObjectIdentifier(found) == ObjectIdentifier(StandardCodecs.self))
    }
    #endif
}
