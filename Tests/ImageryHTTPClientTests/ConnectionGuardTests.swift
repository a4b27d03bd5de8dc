import Foundation
import Imagery
import ImageryHTTPClient
import ImageryTestSupport
import Testing

/// The connection guard against DNS rebinding, with two real servers on two loopback addresses
/// and one port, and a resolver double whose answer changes after its first call. The guard
/// admits 127.0.0.1 only, so 127.0.0.2 stands for the private address a rebinding attacker
/// aims at. No packet leaves loopback.
@Suite(.timeLimit(.minutes(10)))
struct ConnectionGuardTests {
    /// Answers `first`, then `later` on every call after the first, and counts the calls.
    final class RebindingResolver: HostResolving {
        let first: [String], later: [String]
        let calls = Locked(0)

        init(first: [String], later: [String]) {
            self.first = first
            self.later = later
        }

        func addresses(of host: String) async throws(DataLoadingError) -> [String] {
            calls.withLock { calls in
                calls += 1
                return calls == 1 ? first : later
            }
        }
    }

    /// The admitted server on 127.0.0.1 and the refused one on 127.0.0.2, on one port.
    static func servers(
        _ handler: @escaping @Sendable (TestHTTPServer.Request) -> TestHTTPServer.Reply
    ) throws -> (admitted: TestHTTPServer, refused: TestHTTPServer) {
        for _ in 0..<20 {
            let admitted = try TestHTTPServer(handler: handler)
            if let refused = try? TestHTTPServer(address: "127.0.0.2", port: admitted.port, handler: { _ in .ok(Array("wrong server".utf8)) }) {
                return (admitted, refused)
            }
            admitted.stop()   // the port is taken on 127.0.0.2 by someone else: try another
        }
        throw POSIXError(.EADDRINUSE)
    }

    static func guarded(_ resolver: RebindingResolver) -> HTTPClientDataLoader {
        var configuration = HTTPClientDataLoader.Configuration()
        configuration.connectionGuard = ConnectionGuard(resolver: resolver) { address, host throws(DataLoadingError) in
            guard address == "127.0.0.1" else { throw .redirectRefused(source: host, detail: "\(address) is refused") }
        }
        return HTTPClientDataLoader(configuration: configuration)
    }

    @Test("An answer that changes after the check never reaches the refused address: the connection goes to the checked one")
    func rebindingAfterTheCheck() async throws {
        let (admitted, refused) = try Self.servers { _ in .ok(Fixtures.rocket) }
        defer { admitted.stop(); refused.stop() }
        let resolver = RebindingResolver(first: ["127.0.0.1"], later: ["127.0.0.2"])
        // "rebind.test" is in no DNS: the bytes can only come through the checked address.
        let bytes = try await Self.guarded(resolver).shuttingDown { loader in
            try await loader.loadData(for: .url(URL(string: "http://rebind.test:\(admitted.port)/photo.jpg")!)) { _ in }
        }

        #expect(bytes == Fixtures.rocket)
        #expect(admitted.hits("/photo.jpg") == 1)
        #expect(refused.events.count("request") == 0)
        #expect(resolver.calls.withLock { $0 } == 1)   // one lookup per hop: nothing to rebind
    }

    @Test("A first answer the guard refuses is refused before any connection")
    func refusedFirstAnswer() async throws {
        let (admitted, refused) = try Self.servers { _ in .ok(Fixtures.rocket) }
        defer { admitted.stop(); refused.stop() }
        let loader = Self.guarded(RebindingResolver(first: ["127.0.0.2"], later: ["127.0.0.1"]))
        await #expect(throws: DataLoadingError.redirectRefused(source: "rebind.test", detail: "127.0.0.2 is refused")) {
            try await loader.loadData(for: .url(URL(string: "http://rebind.test:\(admitted.port)/photo.jpg")!)) { _ in }
        }
        try await loader.shutdown()
        #expect(admitted.events.count("request") == 0 && refused.events.count("request") == 0)
    }

    @Test("One refused address among several answers refuses the host")
    func everyAddressIsChecked() async throws {
        let (admitted, refused) = try Self.servers { _ in .ok(Fixtures.rocket) }
        defer { admitted.stop(); refused.stop() }
        let loader = Self.guarded(RebindingResolver(first: ["127.0.0.1", "127.0.0.2"], later: ["127.0.0.1"]))
        await #expect(throws: DataLoadingError.redirectRefused(source: "rebind.test", detail: "127.0.0.2 is refused")) {
            try await loader.loadData(for: .url(URL(string: "http://rebind.test:\(admitted.port)/photo.jpg")!)) { _ in }
        }
        try await loader.shutdown()
        #expect(admitted.events.count("request") == 0 && refused.events.count("request") == 0)
    }

    @Test("Each redirect hop is resolved and checked again: a hop whose answer changed is refused, and never requested")
    func redirectHops() async throws {
        let port = Locked(0)
        let (admitted, refused) = try Self.servers { request in
            request.path == "/start" ? .redirect("http://rebind.test:\(port.withLock { $0 })/photo.jpg") : .ok(Fixtures.rocket)
        }
        port.withLock { $0 = admitted.port }
        defer { admitted.stop(); refused.stop() }
        let resolver = RebindingResolver(first: ["127.0.0.1"], later: ["127.0.0.2"])
        let loader = Self.guarded(resolver)
        await #expect(throws: DataLoadingError.redirectRefused(source: "rebind.test", detail: "127.0.0.2 is refused")) {
            try await loader.loadData(for: .url(URL(string: "http://rebind.test:\(admitted.port)/start")!)) { _ in }
        }
        try await loader.shutdown()
        #expect(admitted.hits("/start") == 1 && admitted.hits("/photo.jpg") == 0)
        #expect(refused.events.count("request") == 0)
        #expect(resolver.calls.withLock { $0 } == 2)
    }

    @Test("An IP literal is checked as it is, with no lookup")
    func literals() async throws {
        let resolver = RebindingResolver(first: [], later: [])
        let guarding = ConnectionGuard(resolver: resolver) { address, host throws(DataLoadingError) in
            guard address == "127.0.0.1" else { throw .redirectRefused(source: host, detail: "refused") }
        }
        #expect(try await guarding.address(for: "127.0.0.1") == nil)
        await #expect(throws: DataLoadingError.redirectRefused(source: "[::1]", detail: "refused")) { try await guarding.address(for: "[::1]") }
        await #expect(throws: DataLoadingError.connectionFailed(source: "nowhere.test", detail: "host not found")) {
            try await guarding.address(for: "nowhere.test")
        }
        #expect(resolver.calls.withLock { $0 } == 1)
    }
}
