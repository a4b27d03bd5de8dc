import ImageryTestSupport
import Foundation
@testable import Imagery
import ImageryCodecs
import Testing

@Suite(.timeLimit(.minutes(10)))
struct CoalescingTests {
    @Test("1,000 concurrent requests for 10 URLs make exactly 10 downloads")
    func thousandRequestsTenDownloads() async throws {
        // Given a server that holds every response until all requests have joined
        let gate = Gate()
        let server = try TestHTTPServer { _ in .gated(Fixtures.rocket, gate: gate) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline(cache: nil)
        let urls = (0..<10).map { server.url("/image-\($0).jpg") }

        // When 1,000 callers ask at once
        try await withThrowingTaskGroup(of: ImageResponse.self) { group in
            for index in 0..<1000 {
                let request = ImageRequest(url: urls[index % 10], resize: .fit(width: 64, height: 64))
                group.addTask { try await pipeline.response(for: request) }
            }
            await pipeline.graph.waitUntil { $0.registeredCount == 1000 }
            gate.open()
            var delivered = 0
            for try await response in group {
                #expect(response.image.width == 64)
                #expect(response.origin == .source)
                delivered += 1
            }
            #expect(delivered == 1000)
        }

        // Then the server saw each URL once
        for index in 0..<10 { #expect(server.hits("/image-\(index).jpg") == 1) }
        #expect(server.events.count("request") == 10)
        let stats = pipeline.statistics
        #expect(stats.requests == 1000)
        #expect(stats.downloads == 10)
        #expect(stats.decodes == 10)
        #expect(stats.coalesced == 990)
    }

    @Test("Three sizes of one URL make one download and three decodes")
    func threeSizesOneDownload() async throws {
        let gate = Gate()
        let server = try TestHTTPServer { _ in .gated(Fixtures.meadow, gate: gate) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        let url = server.url("/meadow.jpg")
        let sizes = [64, 128, 256]

        let widths = try await withThrowingTaskGroup(of: Int.self) { group in
            for size in sizes {
                group.addTask {
                    try await pipeline.response(for: ImageRequest(url: url, resize: .fit(width: size, height: size))).image.width
                }
            }
            await pipeline.graph.waitUntil { $0.registeredCount == 3 }
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(widths.sorted() == sizes)
        #expect(server.hits("/meadow.jpg") == 1)
        #expect(pipeline.statistics.downloads == 1)
        #expect(pipeline.statistics.decodes == 3)
    }

    @Test("A credential in the request headers is part of the cache key, so two users never share an image")
    func credentialsSeparateCacheEntries() async throws {
        let server = try TestHTTPServer { request in
            request.headers["authorization"] == "Bearer alice" ? .ok(Fixtures.rocket) : .ok(Fixtures.logo)
        }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        let url = server.url("/me/avatar")
        let alice = ImageRequest(source: .url(url, headers: ["Authorization": "Bearer alice"]))
        let bob = ImageRequest(source: .url(url, headers: ["Authorization": "Bearer bob"]))

        let aliceImage = try await pipeline.response(for: alice)
        #expect(pipeline.cachedImage(for: bob) == nil)
        let bobImage = try await pipeline.response(for: bob)

        #expect(aliceImage.image.width == 640)
        #expect(bobImage.image.width == 500)
        #expect(server.hits("/me/avatar") == 2)
        #expect(pipeline.cacheKey(for: alice) != pipeline.cacheKey(for: bob))
        #expect(!pipeline.cacheKey(for: alice).description.contains("alice"))
    }

    @Test("A caller-set identity drops a presigned URL's volatile query")
    func customIdentityCoalescesPresignedURLs() async throws {
        let server = try TestHTTPServer { _ in .ok(Fixtures.rocket) }
        defer { server.stop() }
        let pipeline = Fixtures.pipeline()
        var first = ImageRequest(url: server.url("/photo/42?signature=aaa"))
        first.cacheIdentity = "photo-42"
        var second = ImageRequest(url: server.url("/photo/42?signature=bbb"))
        second.cacheIdentity = "photo-42"

        _ = try await pipeline.response(for: first)
        let response = try await pipeline.response(for: second)

        #expect(response.origin == .memory)
        #expect(server.events.count("request") == 1)
    }
}
