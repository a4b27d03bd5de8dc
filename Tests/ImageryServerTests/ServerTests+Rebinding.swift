import Foundation
import Imagery
import ImageryHTTPClient
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// DNS rebinding through the whole server: a source named by host, resolved by a double whose
/// answer changes after its first call, and two real origins on one port, on 127.0.0.1 and on
/// 127.0.0.2. The server admits loopback at 127.0.0.1 only, so 127.0.0.2 stands for the private
/// address a rebinding attacker aims at, and the refusal is the source policy's own check. No
/// packet leaves loopback, and no name is looked up in real DNS.
extension ServerTests {
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

    /// The rocket on 127.0.0.1 and another image on 127.0.0.2, on one port.
    static func rebindingOrigins() throws -> (admitted: TestHTTPServer, refused: TestHTTPServer) {
        for _ in 0..<20 {
            let admitted = try TestHTTPServer { request in request.path == "/rocket.jpg" ? .ok(Fixtures.rocket) : .status(404) }
            if let refused = try? TestHTTPServer(address: "127.0.0.2", port: admitted.port, handler: { _ in .ok(Fixtures.logo) }) {
                return (admitted, refused)
            }
            admitted.stop()   // the port is taken on 127.0.0.2 by someone else: try another
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// A server that resolves through `resolver` and admits loopback sources at 127.0.0.1 only.
    static func rebindingServer(_ resolver: RebindingResolver) async throws -> ServerHarness {
        try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.loopbackSourceAddresses = ["127.0.0.1"]
            $0.hostResolver = resolver
        }
    }

    @Test("A source host whose answer changes after the check is fetched from the address checked (127.0.0.1), never from the later answer (127.0.0.2)")
    func rebindingAfterTheCheck() async throws {
        let (admitted, refused) = try Self.rebindingOrigins()
        defer { admitted.stop(); refused.stop() }
        let resolver = RebindingResolver(first: ["127.0.0.1"], later: ["127.0.0.2"])
        let server = try await Self.rebindingServer(resolver)
        defer { server.cancel() }

        // "rebind.test" is in no DNS: the rocket can only come through the checked address.
        let reply = try await server.get("/unsafe/rs:fit:300:300/f:png/plain/http://rebind.test:\(admitted.port)/rocket.jpg")
        #expect(reply.status == 200, "\(reply.text)")
        let image = try ServerHarness.image(reply)
        #expect(image.width == 300 && image.height == 200, "the rocket (640×427), not the other origin's 500×500 logo")
        #expect(admitted.hits("/rocket.jpg") == 1)
        #expect(refused.events.count("request") == 0)
        #expect(resolver.calls.withLock { $0 } == 1, "one lookup per hop: nothing left to rebind")
    }

    @Test("A source host whose first answer is refused (loopback not admitted at 127.0.0.2) is 403 before any connection, whatever it answers next")
    func refusedFirstAnswer() async throws {
        let (admitted, refused) = try Self.rebindingOrigins()
        defer { admitted.stop(); refused.stop() }
        let resolver = RebindingResolver(first: ["127.0.0.2"], later: ["127.0.0.1"])
        let server = try await Self.rebindingServer(resolver)
        defer { server.cancel() }

        let reply = try await server.get("/unsafe/rs:fit:300:300/plain/http://rebind.test:\(admitted.port)/rocket.jpg")
        #expect(reply.status == 403 && reply.text == "source: loopback addresses are refused\n", "\(reply.status) \(reply.status == 200 ? "with an image" : reply.text)")
        // Neither origin saw a request: not the refused address, and not the admitted one a
        // second lookup (a retry, a redirect) would have handed out.
        #expect(admitted.events.count("request") == 0 && refused.events.count("request") == 0)
    }
}
