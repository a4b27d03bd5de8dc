import AsyncHTTPClient
import Foundation
import Imagery
import ImageryImgproxy
import ImageryTestSupport
import NIOCore
import NIOHTTP1
import Testing
@testable import ImageryServer
#if canImport(Glibc)
import Glibc
#endif

/// `imagery-server` processes on 127.0.0.1 with one key and salt, as `scripts/cluster.sh`
/// starts them, each named by its host:port in `X-Imagery-Instance`. Stopped by PID.
struct Cluster {
    static let key = "6f1c0e2b8a7d4c3e9f5a1b2c3d4e5f60"
    static let salt = "a1b2c3d4e5f60718"
    /// Flags every instance gets besides its port and key.
    let flags: [String]
    private(set) var instances: [ServerProcess] = []
    private(set) var ports: [Int] = []

    /// Starts `count` instances with `flags`, each on a free port.
    static func start(_ count: Int, flags: [String]) async throws -> Cluster {
        var cluster = Cluster(flags: flags)
        for _ in 0..<count { try await cluster.add() }
        return cluster
    }

    /// Starts one more instance, on `port` or one below the ephemeral range (so that after a
    /// kill it can start again on the same port, which no other test can have been given), and
    /// returns its index.
    @discardableResult
    mutating func add(port: Int? = nil) async throws -> Int {
        let process = try launch(port: try port ?? LoopbackSocket.portBelowEphemeralRange())
        instances.append(process)
        ports.append(try await process.port())
        return instances.count - 1
    }

    /// Starts instance `index` again, on its port, after it was killed or stopped.
    mutating func restart(_ index: Int) async throws {
        let process = try launch(port: ports[index])
        instances[index] = process
        #expect(try await process.port() == ports[index])
    }

    private func launch(port: Int) throws -> ServerProcess {
        try ServerProcess.start(["--port", String(port), "--key", Self.key, "--salt", Self.salt, "--allow-loopback-sources"] + flags)
    }

    /// What instance `index` puts in `X-Imagery-Instance`.
    func name(_ index: Int) -> String { "127.0.0.1:\(ports[index])" }

    /// Kills every instance still running (a test's cleanup).
    func stop() async {
        for instance in instances {
            instance.kill()
            _ = await instance.exitCode()
        }
    }

    /// The sum of every series of `metric` in instance `index`'s `/metrics`, read directly.
    func metric(_ metric: String, of index: Int) async throws -> Double {
        try await Self.metric(metric, port: ports[index])
    }

    /// The sum of every series of `metric` in the `/metrics` of the server on `port`.
    static func metric(_ metric: String, port: Int) async throws -> Double {
        let reply = try await get(port: port, "/metrics")
        return String(decoding: reply.body, as: UTF8.self).split(separator: "\n").reduce(0) { sum, line in
            guard line.hasPrefix(metric + " ") || line.hasPrefix(metric + "{"), let value = line.split(separator: " ").last else { return sum }
            return sum + (Double(value) ?? 0)
        }
    }

    /// `metric` summed over every instance.
    func total(_ metric: String, over indices: [Int]? = nil) async throws -> Double {
        var sum = 0.0
        for index in indices ?? Array(ports.indices) { sum += try await self.metric(metric, of: index) }
        return sum
    }

    /// A signed path for `source` with `options` (`/sig/options/plain/source`).
    static func path(_ options: String, source: String) -> String {
        let unsigned = "/\(options)/plain/\(source)"
        return "/" + (try! ImgproxySigner(keysHex: key, saltsHex: salt)).sign(unsigned) + unsigned
    }

    typealias Reply = ServerHarness.Reply

    /// GET `path` from 127.0.0.1:`port`.
    static func get(port: Int, _ path: String, accept: String? = nil) async throws -> Reply {
        try await ServerHarness.get(port: port, path, headers: accept.map { [("Accept", $0)] } ?? [])
    }

    /// GETs every path in `paths` through `port`, `concurrency` at a time, in order; records
    /// event "done" in `progress` as each completes. Returns the replies in `paths`' order;
    /// a request that failed at the transport level is a reply with status 0.
    static func load(port: Int, _ paths: [String], concurrency: Int, progress: EventCounter? = nil) async -> [Reply] {
        await withTaskGroup(of: (Int, Reply).self) { group in
            var replies = [Reply?](repeating: nil, count: paths.count)
            var next = 0
            func addNext() {
                guard next < paths.count else { return }
                let index = next, path = paths[index]
                next += 1
                group.addTask {
                    let reply = (try? await get(port: port, path))
                        ?? Reply(status: 0, headers: [:], body: [])
                    progress?.record("done")
                    return (index, reply)
                }
            }
            for _ in 0..<concurrency { addNext() }
            while let (index, reply) = await group.next() {
                replies[index] = reply
                addNext()
            }
            return replies.map { $0! }
        }
    }
}

extension ServerHarness.Reply {
    /// `X-Imagery-Instance`: who answered.
    var instance: String? { header("X-Imagery-Instance") }
    /// nginx's `X-Cache-Status` (`HIT`, `MISS` …).
    var cacheStatus: String? { header("X-Cache-Status") }
    var contentType: String? { header("Content-Type") }
}

/// An origin on 127.0.0.1 that answers every `/photo-N.jpg` with the same small JPEG and
/// counts the GETs it gets.
final class CountingOrigin: Sendable {
    private let server: TestHTTPServer
    var port: Int { server.port }
    /// Every request it got, whatever its path.
    var gets: Int { server.events.count("request") }

    init() throws {
        server = try TestHTTPServer { request in
            request.path.hasPrefix("/photo-") ? .ok(Fixtures.rocket) : .status(404)
        }
    }

    func stop() { server.stop() }

    /// A signed path that fits photo `index` into `size` × `size`.
    func path(_ index: Int, size: Int = 96) -> String {
        Cluster.path("rs:fit:\(size):\(size)", source: "http://127.0.0.1:\(port)/photo-\(index).jpg")
    }
}
