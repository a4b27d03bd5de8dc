import Foundation
import GRDB
@testable import Imagery
import ImageryCodecs
@testable import ImageryDiskCache
import ImageryTestSupport
import Testing

@Suite(.timeLimit(.minutes(10)))
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
        for request in requests { _ = try await first.response(for: request) }
        await first.waitUntilIdle()
        let downloads = source.loads.withLock { $0 }

        // A new pipeline (an app's next launch): empty memory, the same directory.
        let second = try pipeline(policy: policy)
        var widths: [Int] = []
        for request in requests {
            let response = try await second.response(for: request)
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
        _ = try await first.response(for: request)
        await first.waitUntilIdle()
        try await rawDatabase(directory.path + "/cache.sqlite").write { db in
            try db.execute(sql: "UPDATE entry SET data = randomblob(length(data))")
        }

        let second = try pipeline(policy: .originalData)
        let response = try await second.response(for: request)

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
        let response = try await pipeline.response(for: CountingSource().request(2))
        #expect(response.image.width == 64)
    }

    @Test("removeCachedImage and removeAllCachedImages empty both tiers")
    func removal() async throws {
        let source = CountingSource()
        let pipeline = try pipeline(policy: .both)
        let request = source.request(0)
        _ = try await pipeline.response(for: request)
        await pipeline.waitUntilIdle()

        await pipeline.removeCachedImage(for: request)
        #expect(pipeline.cachedImage(for: request) == nil)
        #expect(try await pipeline.response(for: request).origin == .source)
        await pipeline.waitUntilIdle()

        await pipeline.removeAllCachedImages()
        #expect(try await pipeline.response(for: request).origin == .source)
        #expect(source.loads.withLock { $0 } == 3)
    }

    @Test("Processed entries are keyed by processors: a next launch serves each from disk, with the original's metadata")
    func processedEntriesByProcessors() async throws {
        let source = CountingSource()
        var circle = source.request(0), blurred = source.request(0)
        circle.processors = [.circle]
        blurred.processors = [.blur(sigma: 3)]
        let first = try pipeline(policy: .processedImages)
        let expected = try await [first.response(for: circle).image, first.response(for: blurred).image]
        await first.waitUntilIdle()
        // One after the other, and with no original kept: a load each.
        #expect(source.loads.withLock { $0 } == 2)

        let second = try pipeline(policy: .processedImages)
        let hits = try await [second.response(for: circle), second.response(for: blurred)]
        #expect(hits.allSatisfy { $0.origin == .disk })
        #expect(source.loads.withLock { $0 } == 2)
        #expect(hits[0].image.pixel(x: 0, y: 0).alpha == 0)    // the circle kept its alpha (PNG)
        #expect(hits[0].image.packedPixels == expected[0].packedPixels)
        #expect(hits[1].image.width == expected[1].width)
        // A disk hit describes the source, not the stored thumbnail.
        for hit in hits {
            #expect(hit.image.metadata.format == .jpeg)
            #expect(hit.image.metadata.originalSize == PixelSize(width: 640, height: 427))
        }
    }

    @Test("A request that keeps its source's metadata is keyed apart, and a disk hit brings the kept blocks back")
    func keptMetadataSurvivesTheDisk() async throws {
        let source = CountingSource()
        var keeping = source.request(0)
        keeping.keptMetadata = [.colorProfile, .exif]
        let plain = source.request(0)
        let first = try pipeline(policy: .processedImages)
        let kept = try await first.response(for: keeping).image
        let profile = try #require(kept.metadata.embedded?.iccProfile)
        #expect(try await first.response(for: plain).image.metadata.embedded == nil, "not served the keeping request's entry")
        #expect(first.cacheKey(for: keeping) != first.cacheKey(for: plain))
        await first.waitUntilIdle()

        let second = try pipeline(policy: .processedImages)
        let hit = try await second.response(for: keeping)
        #expect(hit.origin == .disk)
        #expect(hit.image.metadata.embedded?.iccProfile == profile)
        #expect(try await second.response(for: plain).image.metadata.embedded == nil)
    }

    @Test("A stored entry with metadata blocks reads back whole; cut or damaged anywhere, it is a miss or a whole entry, never a trap")
    func processedEntryWithBlocks() {
        var metadata = ImageMetadata(format: .jpeg, originalWidth: 640, originalHeight: 427)
        metadata.embedded = EmbeddedMetadata(exif: [1, 2, 3], xmp: nil, iptc: [], iccProfile: Array(repeating: 7, count: 300))
        let entry = ProcessedEntry(image: Array(repeating: 9, count: 50), metadata: metadata)
        let stored = entry.stored
        let back = ProcessedEntry(stored: stored)
        #expect(back?.embedded == metadata.embedded && back?.image == entry.image && back?.originalSize == metadata.originalSize)
        #expect(ProcessedEntry(stored: ProcessedEntry(image: [1, 2], metadata: ImageMetadata(format: .png, originalWidth: 2, originalHeight: 2)).stored)?.embedded == nil)
        var random = SplitMix64(state: 0x0D15_C0DE)
        for _ in 0..<5_000 {
            var damaged = Array(stored.prefix(Int.random(in: 0...stored.count, using: &random)))
            if !damaged.isEmpty, Bool.random(using: &random) {
                damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            _ = ProcessedEntry(stored: damaged)
        }
    }

    /// A source that counts its loads and, once `hold()` is called, waits for `release()`
    /// before answering, so a test can keep a load in flight while it checks another caller.
    final class HeldSource: Sendable {
        let loads = Locked(0)
        private let held = Locked(false)
        private let gate = AsyncStream<Void>.makeStream()

        func hold() { held.withLock { $0 = true } }
        func release() { gate.continuation.finish() }

        func request(_ index: Int) -> ImageRequest {
            ImageRequest(source: .custom(id: "held-\(index)") { [self] in
                loads.withLock { $0 += 1 }
                if held.withLock({ $0 }) { for await _ in gate.stream {} }
                return PipelineDiskTests.photos[index]
            }, resize: .fit(width: 64, height: 64))
        }
    }

    @Test("A reloading caller downloads while a concurrent caller reads the disk")
    func reloadBesideDiskRead() async throws {
        let source = HeldSource()
        let request = source.request(1)
        let first = try pipeline(policy: .both)
        _ = try await first.response(for: request)
        await first.waitUntilIdle()

        let second = try pipeline(policy: .both)
        var reload = request
        reload.options.formUnion(.reloadIgnoringCachedData)
        source.hold()
        let fresh = second.imageTask(with: reload)
        await second.graph.waitUntil { $0.registeredCount == 1 }
        // The reload is in flight at the source; the other caller is answered from disk.
        let cached = try await second.response(for: request)
        #expect(cached.origin == .disk)
        source.release()
        #expect(try await fresh.response.origin == .source)
        #expect(source.loads.withLock { $0 } == 2)
    }

    @Test("Skipping the disk write stores nothing alone, and does not stop a concurrent caller's write")
    func skipDiskWrite() async throws {
        let source = HeldSource()
        var skips = source.request(2)
        skips.options.insert(.skipDiskCacheWrite)
        let pipeline = try pipeline(policy: .both)
        _ = try await pipeline.response(for: skips)
        await pipeline.waitUntilIdle()
        #expect(pipeline.statistics.diskWrites == 0)

        source.hold()
        var skipsOther = source.request(0)
        skipsOther.options.insert(.skipDiskCacheWrite)
        let a = pipeline.imageTask(with: skipsOther), b = pipeline.imageTask(with: source.request(0))
        await pipeline.graph.waitUntil { $0.registeredCount == 2 }
        source.release()
        _ = try await (a.response, b.response)
        await pipeline.waitUntilIdle()
        #expect(source.loads.withLock { $0 } == 2)
        #expect(pipeline.statistics.diskWrites == 2)   // the original and the thumbnail, for the caller that asked
    }

    @Test("Credentials go into persisted keys as a SHA-256 digest, never in clear")
    func credentialDigest() throws {
        let url = URL(string: "https://images.example/photo.jpg")!
        let request = ImageRequest(source: .url(url, headers: ["Authorization": "Bearer secret-token"]))
        let key = ImagePipeline(configuration: .standard).cacheKey(for: request).sourceKey
        #expect(!key.contains("secret-token"))
        let digest = try #require(key.split(separator: "#credential=").last)
        #expect(digest.count == 64 && digest.allSatisfy(\.isHexDigit))
        // SHA-256 of "authorization=Bearer secret-token", computed independently with sha256sum.
        #expect(digest == "caf3a9d3c46ab32deba81952459ef477611b412e6e4a8dd5714bbead3f5f0d7a")
    }
}
