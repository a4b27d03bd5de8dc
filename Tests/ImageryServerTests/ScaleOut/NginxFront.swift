import Foundation
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A real nginx on 127.0.0.1 running `deploy/nginx/imagery.conf` as `scripts/cluster.sh render`
/// renders it (so the tests run the shipped config, with patient timeouts), with its prefix in
/// a temporary directory. Stopped by its PID.
struct NginxFront {
    let port: Int
    let directory: URL
    private let process: ServerProcess

    /// nginx from Debian, if installed (`.ci/run` installs it).
    static let binary: String? = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Starts nginx in front of `upstreams` (ports on 127.0.0.1). `upstreamParameters` replaces
    /// the shipped `max_fails`/`fail_timeout` when a test needs another.
    static func start(upstreams: [Int], edgeCache: Bool, upstreamParameters: String? = nil) async throws -> NginxFront {
        let binary = try #require(binary, Comment(rawValue: CIRun.missing("nginx")))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-nginx-\(UUID().uuidString)")
        let port = try LoopbackSocket.portBelowEphemeralRange()
        let rendered = try await ChildProcess.run(
            "/usr/bin/env",
            ["IMAGERY_UPSTREAM_PARAMS=\(upstreamParameters ?? "")", "/bin/bash",
             repository.appendingPathComponent("scripts/cluster.sh").path, "render", directory.path, String(port),
             edgeCache ? directory.appendingPathComponent("edge").path : "off"] + upstreams.map { "127.0.0.1:\($0)" }
        )
        try #require(rendered.exitCode == 0, "scripts/cluster.sh render failed")
        try bePatient(directory.appendingPathComponent("imagery.conf"), edgeCache: edgeCache)
        // With `error_log stderr notice`, nginx says "start worker process" once its listening
        // socket is open.
        let process = try ServerProcess.start(
            executable: binary, ["-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path],
            readyMarker: "start worker process"
        )
        await process.ready()
        return NginxFront(port: port, directory: directory, process: process)
    }

    /// Stops nginx (SIGTERM to its master, which stops its workers) and removes its directory.
    func stop() async {
        process.signal(SIGTERM)
        _ = await process.exitCode()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Raises the shipped read and lock timeouts, which bound how long an answer may take, to
    /// what a loaded CI run needs: a first answer slower than the 10 s lock timeout would let the
    /// waiting requests through, and one past the 30 s read timeout would be retried on the
    /// next instance. Failover comes from refused connections and 5xx, not from these.
    private static func bePatient(_ config: URL, edgeCache: Bool) throws {
        var text = try String(contentsOf: config, encoding: .utf8)
        let edge = edgeCache ? ["proxy_cache_lock_timeout", "proxy_cache_lock_age"] : []
        for directive in ["proxy_read_timeout", "proxy_next_upstream_timeout"] + edge {
            let pattern = "\(directive) [0-9]+s;"
            let range = try #require(text.range(of: pattern, options: .regularExpression), "\(directive) is not in the shipped config")
            text.replaceSubrange(range, with: "\(directive) 600s;")
        }
        try text.write(to: config, atomically: true, encoding: .utf8)
    }
}
