import Foundation
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `imagery-server health`, which the image's `HEALTHCHECK` and Kubernetes' probes run, against
/// the executable serving on 127.0.0.1: the container image's test checks the same inside the
/// image, but CI skips that one by design, and an orchestrator that is told "up" for a stopped
/// server never replaces it.
extension ShutdownTests {
    @Test(
        "`imagery-server health` exits 0 while its server answers, and 1 for a health path that is not answered 200 and for a stopped server",
        .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
    )
    func healthSubcommand() async throws {
        let executable = try #require(ChildProcess.executable("imagery-server"))
        // Under a path prefix, so the check must read the same settings the server does.
        let server = try ServerProcess.start(["--host", "127.0.0.1", "--port", "0", "--path-prefix", "/edge"])
        defer { server.kill() }
        let port = try await server.port()
        func health(port: Int, _ settings: [String]) async throws -> Int32 {
            try await ChildProcess.run(executable, ["health", "--host", "127.0.0.1", "--port", String(port)] + settings).exitCode
        }

        #expect(try await health(port: port, ["--path-prefix", "/edge"]) == 0, "the server answers /edge/health")
        // The same server answers /health outside its prefix with a 404: a check that took any
        // answer for health would say 0 here.
        #expect(try await health(port: port, []) == 1, "/health is not answered 200 under --path-prefix /edge")

        server.signal(SIGTERM)
        #expect(await server.exitCode() == 0)
        // The stopped server's own port is free now, and a neighbour's server may take it at
        // once: a port held bound and never listening refuses as a stopped server does.
        let stopped = try RefusingPort()
        #expect(try await health(port: stopped.port, ["--path-prefix", "/edge"]) == 1, "nothing listens on \(stopped.port)")
        withExtendedLifetime(stopped) {}
    }
}
