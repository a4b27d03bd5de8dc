import ImageryImgproxy
@testable import ImageryServer
import NIOCore
import Testing

@Suite("The memory tier of responses")
struct ResponseCacheTests {
    static func response(bytes: Int) -> CachedResponse {
        CachedResponse(body: ByteBuffer(repeating: 7, count: bytes), contentType: "image/png", etag: "\"x\"", varyAccept: false, madeAt: 0, policy: ResponseHeaderPolicy(cacheControl: "no-store"))
    }

    static func key(_ index: Int) -> ResponseVariantKey {
        ResponseVariantKey(path: "/p/\(index)", accepted: AcceptedFormats(accept: nil, negotiable: []), settings: "s")
    }

    @Test("A response over an eighth of the budget is never kept, so one large image cannot flush the rest; the total stays within the budget")
    func largeResponsesStayOut() {
        let cache = ResponseCache(budget: 8_000)
        // Given a hot set of small responses
        for index in 0..<40 { cache.store(Self.response(bytes: 150), for: Self.key(index)) }
        #expect(cache[Self.key(39)] != nil && cache[Self.key(0)] != nil)
        // When a response larger than an eighth of the budget is stored, it is not kept, and
        // the hot set is all there
        cache.store(Self.response(bytes: 1_001), for: Self.key(1_000))
        #expect(cache[Self.key(1_000)] == nil)
        #expect((0..<40).allSatisfy { cache[Self.key($0)] != nil })
        // One of an eighth is kept; churn never takes the total past the budget
        cache.store(Self.response(bytes: 1_000), for: Self.key(1_001))
        #expect(cache[Self.key(1_001)] != nil)
        for index in 2_000..<2_500 {
            cache.store(Self.response(bytes: 1_000), for: Self.key(index))
            #expect(cache.bytes <= 8_000)
        }
    }
}
