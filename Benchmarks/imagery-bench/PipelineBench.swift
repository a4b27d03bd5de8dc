import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs
import ImageryUI

/// `imagery-bench pipeline`: the pipeline's hot paths and its memory under churn, against the
/// targets of the pipeline issue, and the lock-versus-actor-hop cost of the isolation design.
struct PipelineBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "Benchmark memory-cache hits, concurrent requests, start-and-cancel churn and the isolation design."
    )

    @Option(help: "Repetitions per measurement (medians are reported).")
    var repetitions = 7

    @Option(help: "Directory for pipeline.md and pipeline.json.")
    var output = "bench-out"

    func run() async throws {
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        var results = PipelineBenchResults(repetitions: repetitions)
        let bench = PipelineBench()
        try await bench.warm()

        log("synchronous memory-cache hit")
        results.syncHitNs = Measurement.median(try (0..<repetitions).map { _ in try bench.syncHits(1_000_000) })
        log("image(for:) memory hit")
        results.asyncHitNs = Measurement.median(try await bench.repeated(repetitions) { try await bench.asyncHits(200_000) })
        log("isolation: lock vs actor hop")
        results.lockLookupNs = Measurement.median(try (0..<repetitions).map { _ in try bench.lockLookups(1_000_000) })
        results.actorLookupNs = Measurement.median(try await bench.repeated(repetitions) { try await bench.actorLookups(200_000) })
        results.mainActorLookupNs = Measurement.median(try await bench.repeated(repetitions) { try await bench.actorLookupsFromMain(50_000) })
        results.mainLockLookupNs = Measurement.median(try await bench.repeated(repetitions) { try await bench.lockLookupsFromMain(1_000_000) })
        log("10,000 concurrent requests over 100 cached sources")
        results.concurrentMs = Measurement.median(try await bench.repeated(repetitions) { try await bench.concurrent(10_000) })
        log("100,000 start-and-cancel cycles")
        let churn = try await bench.churn(100_000)
        results.churnStartMB = churn.start
        results.churnEndMB = churn.end
        results.churnMs = churn.milliseconds
        // After the churn, whose RSS figures must not include the view model's allocations.
        log("view model: first-frame read and cached load")
        results.modelReadNs = Measurement.median(try await bench.repeated(repetitions) { try await bench.modelFirstFrameReads(1_000_000) })
        results.modelLoadNs = Measurement.median(try await bench.repeated(repetitions) { try await bench.modelCachedLoads(200_000) })

        log("bytes: a Data -> [UInt8] copy against the decode it feeds")
        let photo = try Data(contentsOf: URL(fileURLWithPath: "Benchmarks/Corpus/jpeg_large_base_sunset_4272x2848.jpg"))
        results.photoKB = Double(photo.count) / 1000
        results.dataCopyUs = Measurement.median((0..<repetitions).map { _ in
            var total = 0
            let ms = Measurement.time { for _ in 0..<200 { total &+= [UInt8](photo).count } }
            precondition(total == photo.count * 200)
            return ms * 1000 / 200
        })
        let thumbnailer = Thumbnailer(resize: .fit(width: 256, height: 256))
        let bytes = [UInt8](photo)
        results.thumbnailMs = Measurement.median(try (0..<repetitions).map { _ in try Measurement.time { _ = try thumbnailer.thumbnail(from: bytes) } })

        let markdown = results.markdown()
        print(markdown)
        try markdown.write(toFile: "\(output)/pipeline.md", atomically: true, encoding: .utf8)
        try JSONEncoder.pretty.encode(results).write(to: URL(fileURLWithPath: "\(output)/pipeline.json"))
        log("wrote \(output)/pipeline.md and pipeline.json")
    }
}

struct PipelineBenchResults: Codable {
    var repetitions: Int
    var syncHitNs = 0.0
    var asyncHitNs = 0.0
    var lockLookupNs = 0.0
    var actorLookupNs = 0.0
    var mainActorLookupNs = 0.0
    var mainLockLookupNs = 0.0
    var concurrentMs = 0.0
    var modelReadNs = 0.0
    var modelLoadNs = 0.0
    var churnStartMB = 0.0
    var churnEndMB = 0.0
    var churnMs = 0.0
    var photoKB = 0.0
    var dataCopyUs = 0.0
    var thumbnailMs = 0.0

    func markdown() -> String {
        let growth = (churnEndMB / churnStartMB - 1) * 100
        func f(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
        return """
        | Measurement (median of \(repetitions)) | Imagery | Target |
        |---|---|---|
        | `cachedImage(for:)` hit (synchronous) | \(f(syncHitNs / 1000, 3)) µs | ≤ 0.2 µs |
        | `image(for:)` memory hit | \(f(asyncHitNs / 1000, 3)) µs | ≤ 3 µs |
        | `ImageModel.phase(for:)` of a cached image, before any load (a view's first frame) | \(f(modelReadNs / 1000, 3)) µs | — |
        | `ImageModel.load(_:)` answered from memory (the view's task) | \(f(modelLoadNs / 1000, 3)) µs | — |
        | 10,000 concurrent `image(for:)` over 100 cached sources | \(f(concurrentMs, 1)) ms | ≤ 50 ms |
        | 100,000 start-and-cancel cycles: RSS start → end | \(f(churnStartMB, 1)) → \(f(churnEndMB, 1)) MB (\(f(growth, 1))%, \(f(churnMs, 0)) ms) | within 5% |
        | `Data` → `[UInt8]` copy of a \(f(photoKB, 0)) KB 12 MP JPEG, against its 256 px thumbnail | \(f(dataCopyUs, 1)) µs vs \(f(thumbnailMs, 1)) ms (\(f(dataCopyUs / 10 / thumbnailMs, 2))%) | — |
        | Isolation, from a task: lookup under the cache's lock | \(f(lockLookupNs, 1)) ns | — |
        | Isolation, from a task: the same lookup as a hop to a global actor | \(f(actorLookupNs, 1)) ns (\(f(actorLookupNs / lockLookupNs, 1))× the lock) | — |
        | Isolation, from the main actor: lookup under the lock | \(f(mainLockLookupNs, 1)) ns | — |
        | Isolation, from the main actor: hop to the global actor and back | \(f(mainActorLookupNs, 1)) ns (\(f(mainActorLookupNs / mainLockLookupNs, 0))× the lock) | — |
        """
    }
}

/// A global actor standing in for "the cache lives on the pipeline's actor", the design the
/// lock replaces, so both lookups can be timed on the same data.
@globalActor
actor BenchActor {
    static let shared = BenchActor()
}

@BenchActor
final class ActorIsolatedCache {
    var entries: [ImageCacheKey: ImageResponse] = [:]
    nonisolated init() {}
    func lookup(_ key: ImageCacheKey) -> ImageResponse? { entries[key] }
}

struct PipelineBench {
    let pipeline: ImagePipeline
    let requests: [ImageRequest]
    let actorCache = ActorIsolatedCache()

    init() {
        pipeline = ImagePipeline(configuration: .standard)
        // 100 sources of one small PNG made here, so the bench needs no files.
        let pixels = [UInt8]((0..<(64 * 48 * 4)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let bitmap = Bitmap(width: 64, height: 48, pixels: pixels)
        let png = (try? ImageEncoder(format: .png).encode(bitmap)) ?? []
        requests = (0..<100).map { index in
            ImageRequest(source: .custom(id: "bench-\(index)") { png }, resize: .fit(width: 32, height: 32))
        }
    }

    func warm() async throws {
        for request in requests { _ = try await pipeline.response(for: request) }
        for request in requests { await actorCache.store(pipeline.cacheKey(for: request), pipeline.cachedImage(for: request)!) }
    }

    func repeated(_ count: Int, _ body: () async throws -> Double) async throws -> [Double] {
        var values: [Double] = []
        for _ in 0..<count { values.append(try await body()) }
        return values
    }

    /// Nanoseconds per `cachedImage(for:)` hit (the whole public call: key and lookup).
    func syncHits(_ count: Int) throws -> Double {
        try nanosecondsPerCall(count, failure: "memory cache missed") { pipeline.cachedImage(for: requests[$0]) != nil }
    }

    /// Nanoseconds per first-frame read of a cached image by a view model that has loaded
    /// nothing yet: what `AsyncPhoto`'s first `body` calls.
    @MainActor
    func modelFirstFrameReads(_ count: Int) throws -> Double {
        let model = ImageModel(pipeline: pipeline)
        return try nanosecondsPerCall(count, failure: "view model missed the memory cache") {
            model.phase(for: requests[$0]).response != nil
        }
    }

    /// Nanoseconds per `ImageModel.load(_:)` of a cached image, which sets the phase at once.
    @MainActor
    func modelCachedLoads(_ count: Int) throws -> Double {
        let model = ImageModel(pipeline: pipeline)
        return try nanosecondsPerCall(count, failure: "view model started a load for a cached image") {
            model.load(requests[$0])
            return model.phase.response != nil && !model.isLoading
        }
    }

    /// Nanoseconds per `image(for:)` answered from memory.
    func asyncHits(_ count: Int) async throws -> Double {
        let clock = ContinuousClock(), start = clock.now
        for index in 0..<count {
            let response = try await pipeline.response(for: requests[index % 100])
            guard response.origin == .memory else { throw ValidationError("not a memory hit") }
        }
        return (clock.now - start).seconds * 1e9 / Double(count)
    }

    /// Nanoseconds per lookup of a precomputed key under the cache's lock.
    func lockLookups(_ count: Int) throws -> Double {
        let keys = requests.map { pipeline.cacheKey(for: $0) }
        let cache = pipeline.cache!
        return try nanosecondsPerCall(count, failure: "lock lookup missed") { cache[keys[$0]] != nil }
    }

    /// Nanoseconds per call of `hit`, called `count` times with request indices 0..<100 in
    /// turn; throws `failure` unless every call returned `true`.
    private func nanosecondsPerCall(_ count: Int, failure: String, _ hit: (Int) -> Bool) throws -> Double {
        var found = 0
        let ms = Measurement.time {
            for index in 0..<count where hit(index % 100) { found += 1 }
        }
        guard found == count else { throw ValidationError(failure) }
        return ms * 1e6 / Double(count)
    }

    /// Nanoseconds per lookup of a precomputed key on a global actor, awaited from the
    /// caller's isolation: from a task on the pool, or from the main actor, as a view would,
    /// where every lookup leaves the main thread and comes back.
    func actorLookups(_ count: Int, isolation: isolated (any Actor)? = #isolation) async throws -> Double {
        let keys = requests.map { pipeline.cacheKey(for: $0) }
        let clock = ContinuousClock(), start = clock.now
        var found = 0
        for index in 0..<count where await actorCache.lookup(keys[index % 100]) != nil { found += 1 }
        guard found == count else { throw ValidationError("actor lookup missed") }
        return (clock.now - start).seconds * 1e9 / Double(count)
    }

    @MainActor
    func actorLookupsFromMain(_ count: Int) async throws -> Double {
        try await actorLookups(count)
    }

    /// As ``lockLookups(_:)``, from the main actor.
    @MainActor
    func lockLookupsFromMain(_ count: Int) async throws -> Double {
        try lockLookups(count)
    }

    /// Milliseconds for `count` concurrent `image(for:)` calls over the 100 cached sources.
    func concurrent(_ count: Int) async throws -> Double {
        let clock = ContinuousClock(), start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                let request = requests[index % 100]
                group.addTask { _ = try await pipeline.response(for: request) }
            }
            try await group.waitForAll()
        }
        return (clock.now - start).seconds * 1000
    }

    /// RSS before and after `count` cycles of starting a load that never finishes by itself
    /// and cancelling it, after a warm-up so that allocator pools are already sized.
    func churn(_ count: Int) async throws -> (start: Double, end: Double, milliseconds: Double) {
        let churnPipeline = ImagePipeline(configuration: .standard)
        let stalled = (0..<100).map { index in
            ImageRequest(source: .custom(id: "stalled-\(index)") {
                try await Task.sleep(for: .seconds(3600))
                return []
            })
        }
        func cycles(_ n: Int) async {
            for index in 0..<n {
                churnPipeline.imageTask(with: stalled[index % 100]).cancel()
                if index % 1000 == 999 { await churnPipeline.waitUntilIdle() }
            }
            await churnPipeline.waitUntilIdle()
        }
        await cycles(10_000)
        let before = ResidentMemory.megabytes()
        let clock = ContinuousClock(), start = clock.now
        await cycles(count)
        let elapsed = (clock.now - start).seconds * 1000
        return (before, ResidentMemory.megabytes(), elapsed)
    }
}

extension ActorIsolatedCache {
    func store(_ key: ImageCacheKey, _ response: ImageResponse) { entries[key] = response }
}

enum ResidentMemory {
    /// The process's resident set size, from /proc/self/statm (0 where that does not exist).
    static func megabytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
        return pages * 4096 / 1_048_576
    }
}
