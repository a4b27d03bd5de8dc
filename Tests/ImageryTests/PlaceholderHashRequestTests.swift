import Foundation
@testable import Imagery
import Testing

/// `PlaceholderHash`: the forms an API ships a hash in, and the cache of decoded pictures.
@Suite struct PlaceholderHashRequestTests {
    static let gradient = TestBitmaps.make(width: 300, height: 200) { x, y in RGBA(red: UInt8(x * 255 / 299), green: UInt8(y * 255 / 199), blue: 90) }

    @Test("A ThumbHash from hex or base64, and a BlurHash with its aspect ratio; malformed text is nil")
    func forms() throws {
        let hash = try ThumbHash(image: Self.gradient)
        #expect(PlaceholderHash(thumbHashHex: hash.hex) == .thumbHash(hash))
        #expect(PlaceholderHash(thumbHashHex: hash.hex.uppercased()) == .thumbHash(hash))
        #expect(PlaceholderHash(thumbHashBase64: hash.base64) == .thumbHash(hash))
        #expect(PlaceholderHash(thumbHashHex: "abc") == nil && PlaceholderHash(thumbHashHex: "zz00000000") == nil)
        #expect(PlaceholderHash(thumbHashBase64: "not base64!") == nil && PlaceholderHash(thumbHashHex: "0102") == nil)

        let blur = try BlurHash(image: Self.gradient, componentsX: 4, componentsY: 3)
        let placeholder = try #require(PlaceholderHash(blurHash: blur.string, aspectRatio: 1.5))
        #expect(placeholder.image.width == 32 && placeholder.image.height == 21)
        #expect(PlaceholderHash(blurHash: blur.string, aspectRatio: 0.5)?.image.height == 32)
        #expect(PlaceholderHash(blurHash: blur.string, aspectRatio: 0) == nil && PlaceholderHash(blurHash: "??", aspectRatio: 1) == nil)
    }

    @Test("A decoded placeholder is the hash's own picture, decoded once per hash, the oldest evicted past the capacity")
    func cache() throws {
        let cache = PlaceholderCache(capacity: 2)
        let hashes = try [40, 120, 200].map { blue in
            PlaceholderHash.thumbHash(try ThumbHash(image: Bitmap(width: 8, height: 8, filledWith: RGBA(red: 10, green: 20, blue: UInt8(blue)))))
        }
        #expect(cache.image(for: hashes[0]).pixels == hashes[0].decode().pixels)
        _ = cache.image(for: hashes[0])
        #expect(cache.decodeCount == 1)
        _ = cache.image(for: hashes[1])
        _ = cache.image(for: hashes[2])   // evicts the first
        _ = cache.image(for: hashes[1])
        #expect(cache.decodeCount == 3)
        _ = cache.image(for: hashes[0])
        #expect(cache.decodeCount == 4)
    }

    @Test("A placeholder is no part of the cache key: the same image with or without one")
    func notInKey() throws {
        let pipeline = ImagePipeline(configuration: .platformDefault)
        var request = ImageRequest(url: URL(string: "https://example.com/a.jpg")!, resize: .fit(width: 64, height: 64))
        let plain = pipeline.cacheKey(for: request)
        request.placeholder = .thumbHash(try ThumbHash(image: Self.gradient))
        #expect(pipeline.cacheKey(for: request) == plain)
    }
}
