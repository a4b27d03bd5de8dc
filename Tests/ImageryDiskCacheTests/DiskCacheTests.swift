import Foundation
import GRDB
@testable import Imagery
@testable import ImageryDiskCache
import ImageryCodecs
import Testing

/// Each test gets its own cache directory under the system's temporary directory.
final class TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "imagery-disk-cache-" + UUID().uuidString
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The cache's database opened directly, as a tool or a damaged disk would touch it. It waits
/// for locks like the cache does: the cache's own connections may still be closing (WAL
/// checkpoint) when a test reaches in.
func rawDatabase(_ path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.busyMode = .timeout(10)
    return try DatabaseQueue(path: path, configuration: configuration)
}

@Suite(.timeLimit(.minutes(10)))
struct DiskCacheTests {
    let directory = TemporaryDirectory()

    static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    @Test("Round trip, across a reopen")
    func roundTrip() async throws {
        let payload = Self.bytes(20_000, seed: 1)
        do {
            let cache = try DiskCache(directory: directory.path)
            await cache.storeData(payload, for: "a")
            #expect(await cache.cachedData(for: "a") == payload)
            #expect(await cache.cachedData(for: "missing") == nil)
            #expect(cache.statistics.diskHits == 1 && cache.statistics.diskMisses == 1 && cache.statistics.diskWrites == 1)
        }
        let reopened = try DiskCache(directory: directory.path)
        #expect(await reopened.cachedData(for: "a") == payload)
        await reopened.removeData(for: "a")
        #expect(await reopened.cachedData(for: "a") == nil)
    }

    @Test("The size limit holds under heavy churn, least recently used first out")
    func sizeLimitUnderChurn() async throws {
        var configuration = DiskCache.Configuration()
        configuration.sizeLimit = 200_000
        configuration.accessBatchSize = 1
        let cache = try DiskCache(directory: directory.path, configuration: configuration)
        await cache.storeData(Self.bytes(10_000, seed: 0), for: "keep")
        for index in 0..<200 {
            await cache.storeData(Self.bytes(10_000, seed: UInt8(index % 200)), for: "churn-\(index)")
            _ = await cache.cachedData(for: "keep")   // stays the most recently used
            await cache.trim()
        }
        let total = try await rawDatabase(directory.path + "/cache.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT SUM(size) FROM entry") ?? 0
        }
        #expect(total <= 200_000)
        #expect(await cache.cachedData(for: "keep") != nil)
        #expect(await cache.cachedData(for: "churn-0") == nil)
        #expect(cache.statistics.diskEvictions > 150)
    }

    @Test("storeMany stores as storeData would: large entries as files, replaced files removed, size limit kept")
    func storeManyMatchesStoreData() async throws {
        var configuration = DiskCache.Configuration()
        configuration.fileThreshold = 1_000
        configuration.sizeLimit = 50_000
        let cache = try DiskCache(directory: directory.path, configuration: configuration)
        let blobs = directory.path + "/blobs"
        func blobCount() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: blobs).count }

        let small = Self.bytes(100, seed: 1), large = Self.bytes(5_000, seed: 2), larger = Self.bytes(6_000, seed: 3)
        await cache.storeMany([("small", small), ("large", large)])
        #expect(await cache.cachedData(for: "small") == small)
        #expect(await cache.cachedData(for: "large") == large)
        #expect(try blobCount() == 1)

        // Replacing the file entry leaves exactly one file: the replaced one is removed.
        await cache.storeMany([("large", larger)])
        #expect(await cache.cachedData(for: "large") == larger)
        #expect(try blobCount() == 1)

        // Past the size limit, entries are trimmed as after storeData.
        await cache.storeMany((0..<20).map { ("bulk-\($0)", Self.bytes(5_000, seed: UInt8($0))) })
        await cache.trim()
        let total = try await rawDatabase(directory.path + "/cache.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT SUM(size) FROM entry") ?? 0
        }
        #expect(total <= 50_000)
        #expect(cache.statistics.diskWrites == 23)
    }

    @Test("A directory given as a file URL opens the same cache as its path")
    func directoryURL() async throws {
        let url = URL(fileURLWithPath: directory.path)
        try await DiskCache(directory: url).storeData([1, 2, 3], for: "a")
        #expect(try await DiskCache(directory: directory.path).cachedData(for: "a") == [1, 2, 3])
        var configuration = ImagePipeline.Configuration.standard
        #expect(configuration.useDiskCache(directory: url) == nil)
        #expect(configuration.dataCache != nil)
    }

    @Test("Entries expire after their time to live (injectable clock)")
    func timeToLive() async throws {
        let clock = Locked(Date(timeIntervalSince1970: 1_000_000))
        var configuration = DiskCache.Configuration()
        configuration.timeToLive = .seconds(3600)
        configuration.now = { clock.withLock { $0 } }
        let cache = try DiskCache(directory: directory.path, configuration: configuration)
        await cache.storeData([1, 2, 3], for: "a")

        clock.withLock { $0 += 3599 }
        #expect(await cache.cachedData(for: "a") == [1, 2, 3])
        clock.withLock { $0 += 2 }
        #expect(await cache.cachedData(for: "a") == nil)
    }

    @Test("A corrupt entry is detected, dropped and never served")
    func corruptEntry() async throws {
        let cache = try DiskCache(directory: directory.path)
        await cache.storeData(Self.bytes(20_000, seed: 7), for: "victim")
        // Random bytes over the blob, as a torn write or bad sector would leave them.
        var generator = SystemRandomNumberGenerator()
        let garbage = Data((0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        try await rawDatabase(directory.path + "/cache.sqlite").write { db in
            try db.execute(sql: "UPDATE entry SET data = ? WHERE key = 'victim'", arguments: [garbage])
        }

        #expect(await cache.cachedData(for: "victim") == nil)
        #expect(cache.statistics.diskRejected == 1)
        let rows = try await rawDatabase(directory.path + "/cache.sqlite").read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM entry") ?? -1
        }
        #expect(rows == 0)
    }

    @Test("A database that is not a cache is refused and left untouched")
    func notACache() throws {
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let path = directory.path + "/cache.sqlite"
        try rawDatabase(path).write { db in try db.execute(sql: "CREATE TABLE notes(text TEXT)") }
        #expect(throws: DiskCacheError.notACache(path: path)) { try DiskCache(directory: directory.path) }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/blobs"), "a foreign database got a blobs/ folder beside it")

        let text = directory.path + "/other"
        try FileManager.default.createDirectory(atPath: text, withIntermediateDirectories: true)
        try Data("just some text, not SQLite at all".utf8).write(to: URL(fileURLWithPath: text + "/cache.sqlite"))
        #expect(throws: DiskCacheError.self) { try DiskCache(directory: text) }
        #expect(try String(contentsOfFile: text + "/cache.sqlite", encoding: .utf8).hasPrefix("just some text"))
    }

    @Test("A database from a future schema is refused, not overwritten")
    func futureSchema() async throws {
        _ = try DiskCache(directory: directory.path)
        let path = directory.path + "/cache.sqlite"
        try await rawDatabase(path).writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = 99") }
        #expect(throws: DiskCacheError.futureSchema(path: path, found: 99, supported: 1)) {
            try DiskCache(directory: directory.path)
        }
    }

    @Test("A directory that cannot be created, or a file in its place, gives a clear error")
    func unusableDirectory() throws {
        #expect(throws: DiskCacheError.self) { try DiskCache(directory: "/proc/imagery-cannot-live-here") }
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        let file = directory.path + "/not-a-directory"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: DiskCacheError.directoryUnusable(path: file, detail: "it is a file, not a directory")) {
            try DiskCache(directory: file)
        }
        #expect(throws: DiskCacheError.directoryUnusable(path: file + "/images", detail: "\(file) is a file, not a directory")) {
            try DiskCache(directory: file + "/images")
        }
    }
}

@Suite(.timeLimit(.minutes(10)))
struct BlobFileTests {
    let directory = TemporaryDirectory()

    @Test("Large entries are stored as files, survive a reopen, and a corrupted file is rejected")
    func largeEntries() async throws {
        let large = DiskCacheTests.bytes(600_000, seed: 3)
        do {
            let cache = try DiskCache(directory: directory.path)
            await cache.storeData(large, for: "big")
            #expect(await cache.cachedData(for: "big") == large)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/blobs")
        #expect(files.count == 1)

        let reopened = try DiskCache(directory: directory.path)
        #expect(await reopened.cachedData(for: "big") == large)

        // Replacing the entry removes the old file.
        await reopened.storeData(DiskCacheTests.bytes(300_000, seed: 4), for: "big")
        let afterReplace = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/blobs")
        #expect(afterReplace.count == 1 && afterReplace != files)

        // Flip bytes in the file: the entry is rejected, and the row and file are gone.
        let path = directory.path + "/blobs/" + afterReplace[0]
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[1000] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(await reopened.cachedData(for: "big") == nil)
        #expect(reopened.statistics.diskRejected == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/blobs").isEmpty)
    }

    @Test("A missing file reads as a rejected entry, never as data")
    func missingFile() async throws {
        let cache = try DiskCache(directory: directory.path)
        await cache.storeData(DiskCacheTests.bytes(200_000, seed: 5), for: "gone")
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path + "/blobs") {
            try FileManager.default.removeItem(atPath: directory.path + "/blobs/" + name)
        }
        #expect(await cache.cachedData(for: "gone") == nil)
        #expect(cache.statistics.diskRejected == 1)
    }
}

extension DiskCacheTests {
    @Test("A write that waits past the lock timeout for another process's write lock is dropped and counted, and the cache goes on")
    func lockTimeout() async throws {
        var configuration = DiskCache.Configuration()
        configuration.lockTimeout = .milliseconds(100)
        let cache = try DiskCache(directory: directory.path, configuration: configuration)
        guard case let .timeout(seconds) = cache.pool.configuration.busyMode else {
            Issue.record("the lock timeout did not reach SQLite's busy handler")
            return
        }
        #expect(seconds == 0.1)

        // Given another process's transaction holding the write lock for the whole store
        var options = GRDB.Configuration()
        options.allowsUnsafeTransactions = true   // the transaction spans two accesses on purpose
        options.busyMode = .timeout(10)
        let other = try DatabaseQueue(path: directory.path + "/cache.sqlite", configuration: options)
        try await other.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        await cache.storeData(Self.bytes(1_000, seed: 2), for: "held")
        #expect(cache.statistics.diskFailures == 1 && cache.statistics.diskWrites == 0)

        // Then, the lock released, nothing half-written is served and the next write lands
        try await other.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
        #expect(await cache.cachedData(for: "held") == nil)
        await cache.storeData(Self.bytes(1_000, seed: 3), for: "after")
        #expect(await cache.cachedData(for: "after") == Self.bytes(1_000, seed: 3))
    }
}
