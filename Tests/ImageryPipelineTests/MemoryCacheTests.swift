import ImageryTestSupport
import Foundation
@testable import Imagery
import ImageryCodecs
import Testing

@Suite(.timeLimit(.minutes(10)))
struct MemoryCacheTests {
    /// A response whose bitmap costs `width * width * 4` bytes.
    static func response(_ width: Int) -> ImageResponse {
        ImageResponse(
            image: Bitmap(width: width, height: width, pixels: [UInt8](repeating: 0, count: width * width * 4)),
            origin: .source
        )
    }

    static func key(_ name: String) -> ImageCacheKey {
        ImageCacheKey(sourceKey: name)
    }

    @Test("Evicts the least recently used entries by cost")
    func evictsByCost() {
        let cache = ImageCache(costLimit: 3 * 400, countLimit: 100)   // three 10x10 images
        for name in ["a", "b", "c"] { cache[Self.key(name)] = Self.response(10) }
        _ = cache[Self.key("a")]                   // a is now the most recently used
        cache[Self.key("d")] = Self.response(10)   // evicts b, the least recently used

        #expect(cache[Self.key("a")] != nil)
        #expect(cache[Self.key("b")] == nil)
        #expect(cache[Self.key("c")] != nil)
        #expect(cache[Self.key("d")] != nil)
        #expect(cache.totalCost == 1200)

        cache[Self.key("e")] = Self.response(20)   // 1,600 bytes: over the whole limit, not stored
        #expect(cache[Self.key("e")] == nil)
        #expect(cache.count == 3)
    }

    @Test("Evicts by count")
    func evictsByCount() {
        let cache = ImageCache(costLimit: 1 << 30, countLimit: 2)
        for name in ["a", "b", "c"] { cache[Self.key(name)] = Self.response(2) }
        #expect(cache[Self.key("a")] == nil)
        #expect(cache.count == 2)
    }

    @Test("Expires entries after their time to live (injectable clock)")
    func expiresByTTL() {
        let start = ContinuousClock.now
        let offset = Locked(Duration.zero)
        let cache = ImageCache(costLimit: 1 << 20, timeToLive: .seconds(60)) { start + offset.withLock { $0 } }
        cache[Self.key("a")] = Self.response(4)
        offset.withLock { $0 = .seconds(30) }
        cache[Self.key("b")] = Self.response(4)

        offset.withLock { $0 = .seconds(59) }
        #expect(cache[Self.key("a")] != nil)
        offset.withLock { $0 = .seconds(61) }
        #expect(cache[Self.key("a")] == nil)
        #expect(cache[Self.key("b")] != nil)
        #expect(cache.count == 1)
    }

    @Test("removeAll empties the cache, and a replaced entry's cost is counted once")
    func removeAllAndReplace() {
        let cache = ImageCache(costLimit: 1 << 20)
        cache[Self.key("a")] = Self.response(4)
        cache[Self.key("a")] = Self.response(8)
        #expect(cache.totalCost == 256)
        cache[Self.key("a")] = nil
        #expect(cache.count == 0 && cache.totalCost == 0)
        cache[Self.key("b")] = Self.response(4)
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0)
    }

    @Test("LRU bookkeeping stays consistent under random churn")
    func randomChurn() {
        var storage = LRUStorage<Int, Int>()
        var model: [Int] = []   // most recent first
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let key = Int.random(in: 0..<40, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                storage.insert(key, for: key, cost: 1, expiry: nil)
                model.removeAll { $0 == key }
                model.insert(key, at: 0)
            case 1:
                let hit = storage.value(for: key, expiringBefore: nil)
                #expect((hit != nil) == model.contains(key))
                if hit != nil { model.removeAll { $0 == key }; model.insert(key, at: 0) }
            default:
                storage.trim(costLimit: 20, countLimit: 1000)
                model = Array(model.prefix(20))
            }
            #expect(storage.count == model.count)
            #expect(storage.totalCost == model.count)
        }
    }

    @Test("After a load, the image is available synchronously and the next request is a memory hit")
    func pipelineMemoryHits() async throws {
        let loader = ControlledLoader()
        loader.releaseAll()
        let pipeline = Fixtures.pipeline(loader: loader)
        let request = ImageRequest(source: .controlled("cat"), resize: .fit(width: 32, height: 32))
        #expect(pipeline.cachedImage(for: request) == nil)

        let first = try await pipeline.response(for: request)
        let hit = try #require(pipeline.cachedImage(for: request))
        let second = try await pipeline.response(for: request)

        #expect(first.origin == .source)
        #expect(hit.origin == .memory && hit.image == first.image)
        #expect(second.origin == .memory)
        #expect(pipeline.statistics.memoryHits == 1)
        #expect(loader.events.count("started:cat") == 1)

        var reload = request
        reload.options.insert(.reloadIgnoringCachedData)
        #expect(try await pipeline.response(for: reload).origin == .source)
        #expect(loader.events.count("started:cat") == 2)
    }
}
