import Foundation
import Imagery
@testable import ImageryImgproxy
import Testing

/// The server asks small work first: a request's pipeline priority comes from the size of the
/// result it asks for, so that a thumbnail's decode and run are not queued behind a poster's.
@Suite("A plan's priority follows the size of its result")
struct ImgproxyPlanPriorityTests {
    static func priority(_ path: String) throws -> ImageRequest.Priority {
        let parsed = try ImgproxyPath(parsing: path)
        let defaults = ImgproxyPlan.Defaults(quality: 80, maximumPixelCount: 50_000_000, writableFormats: [.jpeg, .png])
        return try ImgproxyPlan(
            options: try ImgproxyOptions(segments: parsed.options), source: .url(URL(string: "http://placeholder.test/")!),
            fileExtension: parsed.fileExtension, defaults: defaults
        ).request.priority
    }

    @Test("Sizes: up to a megapixel high, up to 16 MP normal, beyond low; unknown (the source's) normal", arguments: [
        ((300, 200), 0, ImageRequest.Priority.high), ((1024, 1024), 0, .high), ((300, 0), 0, .high), ((0, 1000), 0, .high),
        ((1025, 1024), 0, .normal), ((4096, 4096), 0, .normal), ((0, 0), 0, .normal),
        ((4097, 4096), 0, .low), ((8192, 8192), 0, .low), ((Int.max, 2), 0, .low),
        ((8192, 8192), 800, .high), ((0, 0), 800, .high), ((0, 0), 5000, .low),
    ] as [((Int, Int), Int, ImageRequest.Priority)])
    func sizes(box: (Int, Int), dimension: Int, expected: ImageRequest.Priority) {
        #expect(ImgproxyPlan.priority(box: (box.0, box.1), dimension: dimension) == expected)
    }

    @Test("A URL's size and its dpr reach the request's priority")
    func fromURLs() throws {
        #expect(try Self.priority("/unsafe/rs:fit:300:300/plain/https://example.com/a.jpg") == .high)
        #expect(try Self.priority("/unsafe/rs:fit:300:300/dpr:8/plain/https://example.com/a.jpg") == .normal)
        #expect(try Self.priority("/unsafe/rs:fit:8192:8192:1/plain/https://example.com/a.jpg@png") == .low)
        #expect(try Self.priority("/unsafe/plain/https://example.com/a.jpg") == .normal)
    }
}
