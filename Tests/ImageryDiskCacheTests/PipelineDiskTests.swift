import Foundation
import GRDB
@testable import Imagery
import ImageryCodecs
@testable import ImageryDiskCache
import Testing

@Suite
struct PipelineDiskTests {
    let directory = TemporaryDirectory()

    static let photos: [[UInt8]] = [
        "jpeg_small_base_rocket_640x427.jpg", "jpeg_med_prog_greenmeadow_1280x1024.jpg", "png_rgba_logo_500x500.png",
    ].map { name in
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ImageryCodecsTests/Resources/\(name)")
        return try! [UInt8](Data(contentsOf: url))
    }

    /// A source that counts its loads, as a server would count downloads.
    final class CountingSource: Sendable {
        let loads = Locked(0)
        func request(_ index: Int, resize: Resize? = .fit(width: 64, height: 64)) -> ImageRequest {
            ImageRequest(source: .custom(id: "photo-\(index)") { [self] in
                loads.withLock { $0 += 1 }
                return PipelineDiskTests.photos[index]
            }, resize: resize)
        }
    }

    func pipeline(policy: DataCachePolicy = .automatic) throws -> ImagePipeline {
        var configuration = ImagePipeline.Configuration.standard
        configuration.dataLoader = DataLoader()
        configuration.dataCachePolicy = policy
        #expect(configuration.useDiskCache(directory: directory.path) == nil)
        return ImagePipeline(configuration: configuration)
    }

    @Test("A second run of the pipeline over the same requests makes zero downloads", arguments: [
        DataCachePolicy.automatic, .originalData, .processedImages, .both,
    ])
    func secondRunMakesNoDownloads(policy: DataCachePolicy) async throws {
        let source = CountingSource()
        // `.processedImages` keeps only resized images: full-size requests are not stored.
        let fullSize = policy == .processedImages ? [] : (0..<3).map { source.request($0, resize: nil) }
        let requests = (0..<3).map { source.request($0) } + fullSize

        let first = try pipeline(policy: policy)
        for request in requests { _ = try await first.image(for: request) }
        await first.waitUntilIdle()
        let downloads = source.loads.withLock { $0 }

        // A new pipeline (an app's next launch): empty memory, the same directory.
        let second = try pipeline(policy: policy)
        var widths: [Int] = []
        for request in requests {
            let response = try await second.image(for: request)
            #expect(response.origin == .disk)
            widths.append(response.image.width)
        }
        #expect(source.loads.withLock { $0 } == downloads)
        #expect(widths == Array([64, 64, 64, 640, 1280, 500].prefix(requests.count)))
        #expect(second.statistics.downloads == 0)
        #expect(second.statistics.diskHits == requests.count)
    }

    @Test("A corrupt disk entry is never served: the pipeline downloads again")
    func corruptEntryIsNotServed() async throws {
        let source = CountingSource()
        let request = source.request(0, resize: nil)
        let first = try pipeline(policy: .originalData)
        _ = try await first.image(for: request)
        await first.waitUntilIdle()
        try await rawDatabase(directory.path + "/cache.sqlite").write { db in
            try db.execute(sql: "UPDATE entry SET data = randomblob(length(data))")
        }

        let second = try pipeline(policy: .originalData)
        let response = try await second.image(for: request)

        #expect(response.origin == .source)
        #expect(response.image.width == 640)
        #expect(source.loads.withLock { $0 } == 2)
        #expect(second.statistics.diskRejected == 1)
    }

    @Test("An unusable cache directory leaves the pipeline working from memory and the source")
    func unusableDirectoryFallsBack() async throws {
        var configuration = ImagePipeline.Configuration.standard
        let error = configuration.useDiskCache(directory: "/proc/imagery-cannot-live-here")
        #expect(error != nil)
        #expect(configuration.dataCache == nil)
        let pipeline = ImagePipeline(configuration: configuration)
        let response = try await pipeline.image(for: CountingSource().request(2))
        #expect(response.image.width == 64)
    }

    @Test("removeCachedImage and removeAllCachedImages empty both tiers")
    func removal() async throws {
        let source = CountingSource()
        let pipeline = try pipeline(policy: .both)
        let request = source.request(0)
        _ = try await pipeline.image(for: request)
        await pipeline.waitUntilIdle()

        await pipeline.removeCachedImage(for: request)
        #expect(pipeline.cachedImage(for: request) == nil)
        #expect(try await pipeline.image(for: request).origin == .source)
        await pipeline.waitUntilIdle()

        await pipeline.removeAllCachedImages()
        #expect(try await pipeline.image(for: request).origin == .source)
        #expect(source.loads.withLock { $0 } == 3)
    }
}
