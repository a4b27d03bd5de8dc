import ImageryTestSupport
import Foundation
@testable import Imagery
import ImageryCodecs
import Synchronization
import Testing

// The limit is a hang's bound, not a timing: in a full run on two cores every decode here waits
// behind the other suites' heavy work on the shared heavy-work threads.
@Suite(.timeLimit(.minutes(10)))
struct AuthorizationTests {
    /// A token service whose first token the server rejects and whose later ones it accepts.
    final class TokenService: Sendable {
        let calls = Atomic<Int>(0)
        let beforeSecondRefresh: @Sendable () async -> Void

        init(beforeSecondRefresh: @escaping @Sendable () async -> Void = {}) {
            self.beforeSecondRefresh = beforeSecondRefresh
        }

        func refresh() async -> TokenProvider.Token {
            let call = calls.wrappingAdd(1, ordering: .relaxed).newValue
            if call == 2 { await beforeSecondRefresh() }
            return TokenProvider.Token(call == 1 ? "stale" : "fresh-\(call)", expiresIn: .seconds(3600))
        }
    }

    static func server() throws -> TestHTTPServer {
        try TestHTTPServer { request in
            (request.headers["authorization"] ?? "").hasPrefix("Bearer fresh") ? .ok(Fixtures.rocket) : .status(401)
        }
    }

    @Test("A 401 causes one refresh and one retry")
    func unauthorizedRefreshesOnce() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let service = TokenService()
        let tokens = TokenProvider(account: "alice") { await service.refresh() }
        let pipeline = Fixtures.pipeline(loader: AuthorizingDataLoader(wrapping: DataLoader(), tokens: tokens))

        let response = try await pipeline.response(for: ImageRequest(url: server.url("/private.jpg")))

        #expect(response.image.width == 640)
        #expect(server.hits("/private.jpg") == 2)          // the rejected try and one retry
        #expect(service.calls.load(ordering: .relaxed) == 2) // the first token and one refresh after the 401
    }

    @Test("50 concurrent 401s still cause exactly one refresh")
    func fiftyConcurrentUnauthorized() async throws {
        let server = try Self.server()
        defer { server.stop() }
        // The refresh after the 401s waits until all 50 rejected requests reached the server,
        // so every one of them is waiting for a refresh at the same time.
        let service = TokenService { await server.events.wait(for: "request", count: 50) }
        let tokens = TokenProvider(account: "alice") { await service.refresh() }
        let pipeline = Fixtures.pipeline(
            loader: AuthorizingDataLoader(wrapping: DataLoader(), tokens: tokens), downloads: 50
        )

        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<50 {
                group.addTask { try await pipeline.response(for: ImageRequest(url: server.url("/p/\(index)"))).image.width }
            }
            for try await width in group { #expect(width == 640) }
        }

        #expect(service.calls.load(ordering: .relaxed) == 2)  // the first token, then one refresh for all 50
        #expect(await tokens.refreshes == 2)
        #expect(server.events.count("request") == 100)        // 50 rejected, 50 retried
    }

    @Test("A retry that is rejected again fails with the 401, without looping")
    func rejectedTwiceFails() async throws {
        let server = try TestHTTPServer { _ in .status(401) }
        defer { server.stop() }
        let tokens = TokenProvider(account: "mallory") { TokenProvider.Token("nope") }
        let pipeline = Fixtures.pipeline(loader: AuthorizingDataLoader(wrapping: DataLoader(), tokens: tokens))
        let url = server.url("/locked.jpg")

        await #expect(throws: ImagePipelineError.loadingFailed(.httpStatus(401, source: url.absoluteString))) {
            try await pipeline.response(for: ImageRequest(url: url))
        }
        #expect(server.hits("/locked.jpg") == 2)
    }

    @Test("A token is refreshed before it expires (injectable clock)")
    func refreshBeforeExpiry() async throws {
        let start = ContinuousClock.now
        let offset = Locked(Duration.zero)
        let counter = Atomic<Int>(0)
        let tokens = TokenProvider(account: "a", refreshMargin: .seconds(60), now: { start + offset.withLock { $0 } }) {
            TokenProvider.Token("t\(counter.wrappingAdd(1, ordering: .relaxed).newValue)", expiresIn: .seconds(300))
        }
        #expect(try await tokens.token() == "t1")
        offset.withLock { $0 = .seconds(200) }
        #expect(try await tokens.token() == "t1")   // 100 s left, more than the margin
        offset.withLock { $0 = .seconds(250) }
        #expect(try await tokens.token() == "t2")   // 50 s left: refreshed early
    }

    @Test("The account of the token provider is part of the cache key")
    func accountPartitionsCache() {
        let alice = AuthorizingDataLoader(wrapping: DataLoader(), tokens: TokenProvider(account: "alice") { .init("a") })
        let bob = AuthorizingDataLoader(wrapping: DataLoader(), tokens: TokenProvider(account: "bob") { .init("b") })
        let request = ImageRequest(url: URL(string: "https://example.com/me.jpg")!)
        #expect(ImagePipeline.cacheKey(for: request, loader: alice) != ImagePipeline.cacheKey(for: request, loader: bob))
    }
}
