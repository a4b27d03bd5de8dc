import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Several `imagery-server` processes behind a real nginx running `deploy/nginx/imagery.conf`,
/// everything on 127.0.0.1 and stopped by PID. One test at a time: each runs four or five
/// processes on a 2-core machine.
@Suite(
    "Scale-out behind nginx",
    .serialized,
    .tags(.integration), .offUnderSanitizer,
    .timeLimit(.minutes(10)),
    .enabled(if: CIRun.runs(needing: NginxFront.binary != nil), "needs nginx (Debian's nginx package; .ci/run installs it)"),
    .enabled(if: ChildProcess.executable("imagery-server") != nil, "needs the imagery-server executable beside the tests")
)
struct ScaleOutTests {
    @Test("Each URL is processed once across three instances: the hash sends all of its requests to one")
    func processedOnce() async throws {
        let origin = try CountingOrigin()
        defer { origin.stop() }
        try await withScaleOut(3, edgeCache: false) { cluster, front in
            // Given 12 distinct URLs, each requested 10 times at once through nginx
            let count = 12
            let urls = (0..<count).map { origin.path($0) }
            let paths = urls.flatMap { Array(repeating: $0, count: 10) }
            let replies = await Cluster.load(port: front.port, paths, concurrency: 30)

            // Then every request succeeds, each URL was always answered by one instance, and
            // the instances decoded and the origin served each image exactly once
            #expect(replies.map(\.status) == Array(repeating: 200, count: paths.count))
            for url in 0..<count {
                let answeredBy = Set(replies[url * 10..<url * 10 + 10].map(\.instance))
                #expect(answeredBy.count == 1, "URL \(url) was answered by \(answeredBy)")
            }
            #expect(Set(replies.map(\.instance)).count >= 2, "the hash spread 12 URLs over the instances")
            let decodes = try await cluster.total("imagery_decodes_total")
            #expect(decodes == Double(count))
            #expect(origin.gets == count)
        }
    }

    @Test("The edge cache answers repeats without reaching the instances, and keeps AVIF, WebP and other clients apart")
    func edgeCache() async throws {
        let origin = try CountingOrigin()
        defer { origin.stop() }
        try await withScaleOut(3, edgeCache: true) { cluster, front in
            let urls = (0..<6).map { origin.path($0) }
            let first = await Cluster.load(port: front.port, urls, concurrency: 3)
            #expect(first.map(\.status) == Array(repeating: 200, count: urls.count))
            #expect(first.map(\.cacheStatus) == Array(repeating: "MISS", count: urls.count))

            // When the same URLs are asked for three more times
            var before: [Double] = []
            for index in cluster.ports.indices { before.append(try await cluster.metric("imagery_http_requests_total", of: index)) }
            let repeats = await Cluster.load(port: front.port, urls + urls + urls, concurrency: 6)

            // Then the edge answers them all, and no instance saw a request but the scrape that read `before`
            #expect(repeats.map(\.cacheStatus) == Array(repeating: "HIT", count: repeats.count))
            #expect(repeats.map(\.instance) == first.map(\.instance) + first.map(\.instance) + first.map(\.instance))
            for index in cluster.ports.indices {
                let requests = try await cluster.metric("imagery_http_requests_total", of: index)
                #expect(requests == before[index] + 1)
            }
            #expect(origin.gets == urls.count)

            // Clients that accept AVIF, and clients that accept WebP but not AVIF, each have a
            // cache entry of their own (the server answers them differently), which is then a
            // hit for any Accept of the same class
            let writes = ImageEncoder.supportedFormats
            let avif = try await Cluster.get(port: front.port, urls[0], accept: "image/avif,image/webp,*/*")
            #expect(avif.cacheStatus == "MISS")
            let avifFormat: ImageFormat = writes.contains(.avif) ? .avif : writes.contains(.webp) ? .webp : .jpeg
            ServerHarness.expectImage(avif, avifFormat)
            let webP = try await Cluster.get(port: front.port, urls[0], accept: "image/webp,*/*")
            #expect(webP.cacheStatus == "MISS")
            ServerHarness.expectImage(webP, writes.contains(.webp) ? .webp : .jpeg)
            let otherAVIF = try await Cluster.get(port: front.port, urls[0], accept: "image/avif,*/*;q=0.8")
            let otherWebP = try await Cluster.get(port: front.port, urls[0], accept: "image/webp,image/apng,*/*")
            let jpegOnly = try await Cluster.get(port: front.port, urls[0], accept: "image/jpeg")
            #expect(otherAVIF.cacheStatus == "HIT" && otherAVIF.body == avif.body)
            ServerHarness.expectImage(otherAVIF, avifFormat)
            #expect(otherWebP.cacheStatus == "HIT" && otherWebP.body == webP.body)
            ServerHarness.expectImage(otherWebP, writes.contains(.webp) ? .webp : .jpeg)
            #expect(jpegOnly.cacheStatus == "HIT")
            ServerHarness.expectImage(jpegOnly, .jpeg)
            // A client that takes JPEG XL (Safari) is a fourth class at the edge: with the
            // server's --auto-jxl off it is answered as the AVIF class is, under its own key
            let safari = try await Cluster.get(port: front.port, urls[0], accept: "image/webp,image/avif,image/jxl,image/heic,image/heic-sequence,video/*;q=0.8,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5")
            #expect(safari.cacheStatus == "MISS" && safari.body == avif.body)
            let otherJXL = try await Cluster.get(port: front.port, urls[0], accept: "image/jxl,image/avif,*/*")
            #expect(otherJXL.cacheStatus == "HIT" && otherJXL.body == avif.body)
            // A request with a client hint passes through the edge, neither looked up nor stored.
            for _ in 0..<2 {
                let hinted = try await ServerHarness.get(port: front.port, urls[0], headers: [("Sec-CH-DPR", "2")])
                #expect(hinted.status == 200 && hinted.cacheStatus == "BYPASS")
            }

            // And the edge coalesces too: 8 concurrent misses for each of 4 new URLs send each
            // instance one request per URL (plus the scrape that read `sent`)
            let sent = try await cluster.total("imagery_http_requests_total")
            let fresh = (6..<10).map { origin.path($0) }
            let misses = await Cluster.load(port: front.port, fresh.flatMap { Array(repeating: $0, count: 8) }, concurrency: 32)
            #expect(misses.map(\.status) == Array(repeating: 200, count: misses.count))
            let reached = try await cluster.total("imagery_http_requests_total") - sent - Double(cluster.ports.count)
            #expect(reached == Double(fresh.count))
        }
    }

    // max_fails=0: nginx then tries an instance's own URLs on it first every time, so its
    // return is an event the test can await (the first answer after its restart) rather than
    // the end of the shipped 5 s fail_timeout. Failover itself is proxy_next_upstream, unchanged.
    @Test("kill -9 of an instance under load: no request fails; restarted, it gets its URLs back")
    func failover() async throws {
        let origin = try CountingOrigin()
        defer { origin.stop() }
        try await withScaleOut(3, edgeCache: false, upstreamParameters: "max_fails=0") { cluster, front in
            // Given a load of 24 URLs asked for 10 times each, 8 at a time, during which one
            // instance is killed a fifth of the way through
            let victim = 0
            let (urls, replies) = await Self.load(origin: origin, through: front) {
                cluster.instances[victim].signal(SIGKILL)
                _ = await cluster.instances[victim].exitCode()
            }

            // Then every request was answered, and the victim's URLs by its neighbours at the end
            #expect(replies.filter { $0.status != 200 }.count == 0)
            let owned = urls.indices.filter { replies[$0].instance == cluster.name(victim) }
            #expect(!owned.isEmpty, "the victim owned some of 24 URLs before it was killed")
            #expect(replies.suffix(urls.count).allSatisfy { $0.instance != nil && $0.instance != cluster.name(victim) })

            // And once it is back on its port, its URLs are answered by it again
            try await cluster.restart(victim)
            for url in owned {
                let reply = try await Cluster.get(port: front.port, urls[url])
                #expect(reply.status == 200 && reply.instance == cluster.name(victim))
            }
        }
    }

    @Test("SIGTERM to an instance under load: no request fails, and it exits 0")
    func gracefulRestart() async throws {
        let origin = try CountingOrigin()
        defer { origin.stop() }
        try await withScaleOut(3, edgeCache: false) { cluster, front in
            let stopping = 1
            var exitCode: Int32?
            let (urls, replies) = await Self.load(origin: origin, through: front) {
                cluster.instances[stopping].signal(SIGTERM)
                exitCode = await cluster.instances[stopping].exitCode()
            }
            #expect(exitCode == 0)

            #expect(replies.filter { $0.status != 200 }.count == 0)
            #expect(replies.suffix(urls.count).allSatisfy { $0.instance != nil && $0.instance != cluster.name(stopping) })
        }
    }

    @Test("Going from 3 to 4 instances moves about a quarter of 1,000 URLs, all of them to the new one")
    func rebalancing() async throws {
        try await withScaleOut(4, edgeCache: false) { cluster, four in
            let three = try await NginxFront.start(upstreams: Array(cluster.ports.prefix(3)), edgeCache: false)
            // Refused before any work (a local:// source with no local root), but answered by
            // the instance the hash chose, which is all this test reads.
            let urls = (0..<1000).map { Cluster.path("rs:fit:100:100", source: "local:///photo-\($0).jpg") }
            let before = await Cluster.load(port: three.port, urls, concurrency: 16).map(\.instance)
            let after = await Cluster.load(port: four.port, urls, concurrency: 16).map(\.instance)
            await three.stop()

            #expect(!before.contains(nil) && !after.contains(nil))
            #expect(Set(before) == Set((0..<3).map(cluster.name)))
            let moved = urls.indices.filter { before[$0] != after[$0] }
            let fraction = Double(moved.count) / Double(urls.count)
            #expect((0.15...0.35).contains(fraction), "moved \(moved.count) of 1,000")
            #expect(moved.allSatisfy { after[$0] == cluster.name(3) }, "a URL moved between two old instances")
        }
    }

    @Test("With one shared disk cache, a killed instance's URLs are served by its neighbours without the origin")
    func sharedDiskCache() async throws {
        let origin = try CountingOrigin()
        defer { origin.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-shared-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withScaleOut(3, flags: ["--cache-dir", directory.path], edgeCache: false) { cluster, front in
            // Given 12 URLs served once through nginx, each by the instance the hash chose
            let urls = (0..<12).map { origin.path($0) }
            let first = await Cluster.load(port: front.port, urls, concurrency: 4)
            #expect(first.map(\.status) == Array(repeating: 200, count: urls.count))
            #expect(origin.gets == urls.count)
            let victim = try #require(cluster.ports.indices.max { a, b in
                first.filter { $0.instance == cluster.name(a) }.count < first.filter { $0.instance == cluster.name(b) }.count
            })
            let owned = urls.indices.filter { first[$0].instance == cluster.name(victim) }

            // And every instance restarted gracefully on its port: its background disk writes
            // land before it exits (the drain test checks that), and no memory cache survives.
            // Another process's SQLite commit sends no event this one could await otherwise.
            for index in cluster.ports.indices {
                cluster.instances[index].signal(SIGTERM)
                #expect(await cluster.instances[index].exitCode() == 0)
                try await cluster.restart(index)
            }

            // When that instance is killed and its URLs are asked for again, through a fresh
            // nginx (the first one's connections went to the old processes) whose ring holds, in
            // the victim's place, a port that refuses: the victim's own freed port could be
            // taken by a parallel test's server, which would then answer for the dead instance.
            cluster.instances[victim].signal(SIGKILL)
            _ = await cluster.instances[victim].exitCode()
            let dead = try RefusingPort()
            var upstreams = cluster.ports
            upstreams[victim] = dead.port
            let fresh = try await NginxFront.start(upstreams: upstreams, edgeCache: false)
            let again = await Cluster.load(port: fresh.port, owned.map { urls[$0] }, concurrency: 4)
            await fresh.stop()
            withExtendedLifetime(dead) {}   // the port refuses until nginx is gone

            // Then its neighbours answer from the shared disk cache: the origin sees nothing more
            #expect(again.map(\.status) == Array(repeating: 200, count: owned.count))
            #expect(again.allSatisfy { $0.instance != nil && $0.instance != cluster.name(victim) })
            #expect(origin.gets == urls.count)
            let diskHits = try await cluster.total(#"imagery_response_hits_total{tier="disk"}"#, over: cluster.ports.indices.filter { $0 != victim })
            #expect(diskHits >= Double(owned.count))
        }
    }
}

extension ScaleOutTests {
    /// Starts `count` instances and nginx in front of them, runs `body`, and stops them all
    /// by PID, whether `body` succeeded or not.
    private func withScaleOut(
        _ count: Int, flags: [String] = [], edgeCache: Bool, upstreamParameters: String? = nil,
        _ body: (inout Cluster, NginxFront) async throws -> Void
    ) async throws {
        var cluster = try await Cluster.start(count, flags: flags)
        let front: NginxFront
        do {
            front = try await NginxFront.start(upstreams: cluster.ports, edgeCache: edgeCache, upstreamParameters: upstreamParameters)
        } catch {
            await cluster.stop()
            throw error
        }
        do {
            try await body(&cluster, front)
        } catch {
            await front.stop()
            await cluster.stop()
            throw error
        }
        await front.stop()
        await cluster.stop()
    }

    /// GETs 24 URLs 10 times each through `front`, 8 at a time, and runs `interrupt` once 48
    /// have been answered, while the rest are in flight. Returns the URLs and the replies in
    /// order: the first 24 are the URLs in order, as are the last 24.
    private static func load(
        origin: CountingOrigin, through front: NginxFront, interrupt: () async -> Void
    ) async -> (urls: [String], replies: [Cluster.Reply]) {
        let urls = (0..<24).map { origin.path($0) }
        let progress = EventCounter()
        let port = front.port
        async let replies = Cluster.load(port: port, Array(repeating: urls, count: 10).flatMap { $0 }, concurrency: 8, progress: progress)
        await progress.wait(for: "done", count: 48)
        await interrupt()
        return (urls, await replies)
    }
}
