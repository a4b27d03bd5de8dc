import Foundation
@testable import Imagery
import ImageryDiskCache
import ImageryImgproxy
@testable import ImageryServer
import ImageryTestSupport
import Testing

/// Freshness (issue 32): the source's Last-Modified and Cache-Control carried from the origin
/// through the pipeline into every tier, ETags, busters and the canonical link, against a real
/// origin that sends those headers.
extension ServerTests {
    static let modified = "Wed, 21 Oct 2015 07:28:00 GMT"
    /// The tests' clock starts here: the origin's Expires is said from it.
    static let start = 1_700_000_000

    static func freshnessOrigin() throws -> TestHTTPServer {
        try TestHTTPServer { request in
            switch request.path {
            case "/modified.jpg": .headers(200, [("Last-Modified", modified)], Fixtures.rocket)
            case "/cached.jpg": .headers(200, [("Cache-Control", "public, max-age=60"), ("Last-Modified", modified)], Fixtures.rocket)
            case "/expires.jpg": .headers(200, [("Expires", HTTPDate.format(start + 100))], Fixtures.rocket)
            case "/private.jpg": .headers(200, [("Cache-Control", "private, max-age=600")], Fixtures.rocket)
            case "/undated.jpg": .ok(Fixtures.rocket)
            default: .status(404)
            }
        }
    }

    @Test("HTTP dates and RFC 3339 times read and written as the calendar says")
    func httpDates() {
        #expect(HTTPDate.parse(Self.modified) == 1_445_412_480)
        #expect(HTTPDate.format(1_445_412_480) == Self.modified)
        #expect(HTTPDate.parse("Wednesday, 21-Oct-15 07:28:00 GMT") == 1_445_412_480)
        #expect(HTTPDate.parse("Wed Oct 21 07:28:00 2015") == 1_445_412_480)
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT" && HTTPDate.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.parse("yesterday") == nil && HTTPDate.parse("Wed, 32 Oct 2015 07:28:00 GMT") == nil)
        #expect(HTTPDate.parseRFC3339("2015-10-21T07:28:00Z") == 1_445_412_480)
        #expect(HTTPDate.parseRFC3339("2015-10-21T09:28:00.250+02:00") == 1_445_412_480)
        #expect(HTTPDate.parseRFC3339("2015-10-21 07:28:00") == nil && HTTPDate.parseRFC3339("2015-10-21T07:28:00") == nil)
    }

    @Test("A date outside the years 1 to 9999 is no date, in every form and every sign; any time is written, held to those years")
    func httpDatesOutOfRange() {
        #expect(HTTPDate.parse("Mon, 01 Jan 0001 00:00:00 GMT") == HTTPDate.seconds.lowerBound)
        #expect(HTTPDate.parse("Fri, 31 Dec 9999 23:59:59 GMT") == HTTPDate.seconds.upperBound)
        for text in ExtremeValues.fixedDates where !["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                                                      "Mon, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Thu, 01 Jan 1970 00:00:00 GMT",
                                                      "Sun, 31 Feb 9999 23:59:60 GMT"].contains(text) {
            #expect(HTTPDate.parse(text) == nil, "\(text.prefix(60))")
        }
        for text in ExtremeValues.dates(count: 2_000, seed: 9) { _ = HTTPDate.parse(text) }   // none traps
        #expect(HTTPDate.format(.min) == "Mon, 01 Jan 0001 00:00:00 GMT" && HTTPDate.format(.max) == "Fri, 31 Dec 9999 23:59:59 GMT")
    }

    @Test("Cache-Control's ages are delta-seconds held at ten years; anything but digits is 0, so stale at once")
    func cacheControlAges() {
        #expect(CacheControl("public, max-age=60").age == 60)
        #expect(CacheControl("max-age=60, s-maxage=5").age == 5)
        #expect(CacheControl("max-age=9223372036854775807").age == CacheControl.maximumAge)
        #expect(CacheControl("max-age=99999999999999999999999999").age == CacheControl.maximumAge)
        #expect(CacheControl("s-maxage=60, max-age=-9223372036854775808").age == 60)
        for value in ["-1", "-9223372036854775808", "1e9", "nan", "", "+5", "0x10"] {
            #expect(CacheControl("max-age=\(value)").age == 0, "\(value)")
        }
        #expect(CacheControl("public").age == nil && CacheControl("no-store").forbidsStoring)
        #expect(CacheControl.aged("public, max-age=9223372036854775807", by: .max) == "public, max-age=0")
        #expect(CacheControl.aged("max-age=100, s-maxage=-5", by: 30) == "max-age=70, s-maxage=0")
        #expect(CacheControl.maximumAge(in: "public, max-age=9223372036854775808") == CacheControl.maximumAge)

        // The policy: a stored copy of an age past Int is fresh for ten years, then stale; a
        // negative one is never stored.
        var policy = ResponseHeaderPolicy(cacheControl: "public, max-age=1")
        policy.passesCacheControlThrough = true
        let madeAt = 1_700_000_000
        let long = policy.lifetime(of: SourceHeaders(cacheControl: "max-age=9223372036854775807"), madeAt: madeAt)
        #expect(long == .sourceCacheControl("max-age=9223372036854775807", freshUntil: madeAt + CacheControl.maximumAge))
        let negative = policy.lifetime(of: SourceHeaders(cacheControl: "max-age=-9223372036854775808"), madeAt: madeAt)
        #expect(negative == .notStored("max-age=-9223372036854775808"))
    }

    @Test("Last-Modified is the source's, raised to the buster; If-Modified-Since gets 304 (If-None-Match first); --use-last-modified=false sends none")
    func lastModified() async throws {
        let origin = try Self.freshnessOrigin()
        defer { origin.stop() }
        let server = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { server.cancel() }
        let busted = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.lastModifiedBuster = "2020-01-01T00:00:00Z"
        }
        defer { busted.cancel() }
        let off = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.useLastModified = false
        }
        defer { off.cancel() }
        let path = Self.plain(origin, "/modified.jpg")

        let first = try await server.get(path)
        #expect(first.status == 200 && first.header("last-modified") == Self.modified)
        let unchanged = try await server.get(path, headers: [("If-Modified-Since", Self.modified)])
        #expect(unchanged.status == 304 && unchanged.body.isEmpty && unchanged.header("last-modified") == Self.modified)
        #expect(try await server.get(path, headers: [("If-Modified-Since", "Tue, 20 Oct 2015 07:28:00 GMT")]).status == 200)
        #expect(try await server.get(path, headers: [("If-Modified-Since", Self.modified), ("If-None-Match", "\"other\"")]).status == 200)
        #expect(try await server.get(Self.plain(origin, "/undated.jpg")).header("last-modified") == nil)

        let raised = try await busted.get(path)
        #expect(raised.header("last-modified") == "Wed, 01 Jan 2020 00:00:00 GMT")
        #expect(try await busted.get(path, headers: [("If-Modified-Since", Self.modified)]).status == 200)
        #expect(try await busted.get(path, headers: [("If-Modified-Since", "Wed, 01 Jan 2020 00:00:00 GMT")]).status == 304)

        let none = try await off.get(path, headers: [("If-Modified-Since", "Fri, 01 Jan 2100 00:00:00 GMT")])
        #expect(none.status == 200 && none.header("last-modified") == nil)
        #expect(origin.hits("/modified.jpg") == 3)   // once per server: the rest were answered from memory
    }

    @Test("ETags: on by default, mixed with --etag-buster, off with --use-etag=false (If-None-Match then ignored)")
    func etags() async throws {
        let origin = try Self.freshnessOrigin()
        defer { origin.stop() }
        let plain = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { plain.cancel() }
        let busted = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.etagBuster = "v2"
        }
        defer { busted.cancel() }
        let off = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.useETag = false
        }
        defer { off.cancel() }
        let path = Self.plain(origin, "/undated.jpg")

        let tag = try #require(try await plain.get(path).header("etag"))
        let bustedTag = try #require(try await busted.get(path).header("etag"))
        #expect(tag != bustedTag)
        #expect(try await busted.get(path, headers: [("If-None-Match", tag)]).status == 200)
        #expect(try await busted.get(path, headers: [("If-None-Match", bustedTag)]).status == 304)
        let untagged = try await off.get(path, headers: [("If-None-Match", "*")])
        #expect(untagged.status == 200 && untagged.header("etag") == nil && untagged.body.count > 0)
    }

    @Test("--cache-control-passthrough: the source's Cache-Control (aged by a stored copy's age, made again once spent) or Expires; private ones never stored")
    func cacheControlPassthrough() async throws {
        let origin = try Self.freshnessOrigin()
        defer { origin.stop() }
        let clock = Locked(Self.start)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-passthrough-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        func instance() async throws -> ServerHarness {
            try await ServerHarness.start {
                $0.allowLoopbackSources = true
                $0.cacheControlPassthrough = true
                $0.cacheDirectory = directory.path
                $0.clock = { clock.withLock { $0 } }
            }
        }
        let server = try await instance()
        defer { server.cancel() }
        let ours = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { ours.cancel() }
        let cached = Self.plain(origin, "/cached.jpg")

        #expect(try await ours.get(cached).header("cache-control") == "public, max-age=31536000, immutable")
        #expect(try await server.get(cached).header("cache-control") == "public, max-age=60")
        clock.withLock { $0 += 20 }
        #expect(try await server.get(cached).header("cache-control") == "public, max-age=40")
        await server.server.writes.drain()
        // A fresh instance on the same disk tier: the stored copy, aged.
        let second = try await instance()
        defer { second.cancel() }
        #expect(try await second.get(cached).header("cache-control") == "public, max-age=40")
        #expect(origin.hits("/cached.jpg") == 2)   // `ours`, then `server` once
        clock.withLock { $0 += 41 }
        #expect(try await server.get(cached).header("cache-control") == "public, max-age=60")
        #expect(origin.hits("/cached.jpg") == 3)   // spent: made again

        #expect(try await server.get(Self.plain(origin, "/expires.jpg")).header("cache-control") == "max-age=39, public")
        for _ in 0..<2 {
            #expect(try await server.get(Self.plain(origin, "/private.jpg")).header("cache-control") == "private, max-age=600")
        }
        #expect(origin.hits("/private.jpg") == 2)
        #expect(try await server.get(Self.plain(origin, "/undated.jpg")).header("cache-control") == "public, max-age=31536000, immutable")
    }

    @Test("--set-canonical-header: Link names an http(s) source, never a local one")
    func canonicalHeader() async throws {
        let origin = try Self.freshnessOrigin()
        defer { origin.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-canonical-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(Fixtures.rocket).write(to: root.appendingPathComponent("rocket.jpg"))
        let server = try await ServerHarness.start {
            $0.allowLoopbackSources = true
            $0.setCanonicalHeader = true
            $0.localRoot = root.path
        }
        defer { server.cancel() }
        let off = try await ServerHarness.start { $0.allowLoopbackSources = true }
        defer { off.cancel() }

        let expected = "<http://127.0.0.1:\(origin.port)/undated.jpg>; rel=\"canonical\""
        #expect(try await server.get(Self.plain(origin, "/undated.jpg")).header("link") == expected)
        #expect(try await server.get(Self.plain(origin, "/undated.jpg")).header("link") == expected)   // from memory too
        #expect(try await server.get("/unsafe/w:50/plain/local:///rocket.jpg").header("link") == nil)
        #expect(try await off.get(Self.plain(origin, "/undated.jpg")).header("link") == nil)
    }

    @Test("The disk tier keeps the source's freshness, and an entry of the older format is a miss, made again, never misread")
    func storedFormatIsVersioned() async throws {
        let origin = try Self.freshnessOrigin()
        defer { origin.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("imagery-format-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        func instance() async throws -> ServerHarness {
            try await ServerHarness.start {
                $0.allowLoopbackSources = true
                $0.cacheDirectory = directory.path
            }
        }
        let path = Self.plain(origin, "/modified.jpg")
        let first = try await instance()
        let made = try await first.get(path)
        await first.server.writes.drain()
        first.cancel()
        let disk = try #require((first.server.images.tiers.shared.first as? ResponseDiskTier)?.store as? DiskCache)
        let key = ResponseVariantKey(path: path, accepted: .other, settings: first.server.images.settings)
        let stored = try #require(await disk.cachedData(for: "response/" + key.digest))
        #expect(stored.starts(with: Array("IMR3".utf8)))

        // An entry as version 1 wrote it: type, tag, Vary, body; no freshness.
        var old = Array("IMR1".utf8)
        for field in ["image/jpeg", made.header("etag") ?? "\"x\""] { old += [UInt8(field.utf8.count)] + Array(field.utf8) }
        old += [1] + made.body
        await disk.storeData(old, for: "response/" + key.digest)

        let second = try await instance()
        let remade = try await second.get(path)
        #expect(remade.status == 200 && remade.body == made.body && remade.header("last-modified") == Self.modified)
        #expect(origin.hits("/modified.jpg") == 2)   // the old entry was a miss
        await second.server.writes.drain()
        second.cancel()
        let third = try await instance()
        defer { third.cancel() }
        let hit = try await third.get(path)
        #expect(hit.header("last-modified") == Self.modified && hit.body == made.body)
        #expect(origin.hits("/modified.jpg") == 2 && third.server.pipeline.statistics.downloads == 0)
    }
}
