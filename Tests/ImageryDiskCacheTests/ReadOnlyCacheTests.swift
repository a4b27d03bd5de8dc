import Foundation
import GRDB
@testable import Imagery
import ImageryCodecs
@testable import ImageryDiskCache
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A directory seen through a read-only bind mount: root may write anywhere else, so this is
/// the way to make a directory truly read-only for a test that runs as root.
final class ReadOnlyMount {
    let source: String
    let path: String

    /// Whether this machine lets the test process bind-mount (root with CAP_SYS_ADMIN).
    static let isAvailable: Bool = {
        let probe = TemporaryDirectory()
        try? FileManager.default.createDirectory(atPath: probe.path, withIntermediateDirectories: true)
        return (try? ReadOnlyMount(source: probe.path)) != nil
    }()

    init(source: String) throws {
        self.source = source
        path = source + "-readonly"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", "--bind", source, path) == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw POSIXError(.EPERM)
        }
        guard Self.run("/bin/mount", "-o", "remount,ro,bind", path) == 0 else {
            _ = Self.run("/bin/umount", path)
            try? FileManager.default.removeItem(atPath: path)
            throw POSIXError(.EPERM)
        }
    }

    deinit {
        // Lazily: a connection the failing test left open must not keep the mount behind.
        _ = Self.run("/bin/umount", "-l", path)
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Runs a short system command to its end; its exit code, or -1.
    private static func run(_ arguments: String...) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
    }
}

@Suite(.serialized, .timeLimit(.minutes(10)), .tags(.integration), .offUnderSanitizer, .enabled(if: ReadOnlyMount.isAvailable, "cannot bind-mount a directory read-only here (needs root with CAP_SYS_ADMIN)"))
struct ReadOnlyCacheTests {
    let directory = TemporaryDirectory()

    /// Moves the write-ahead log into the database file, as a writer's clean close does.
    static func checkpoint(_ directory: String) throws {
        try rawDatabase(directory + "/cache.sqlite").writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    @Test("A good cache in a read-only directory opens read-only and serves its hits")
    func servesHits() async throws {
        let small = DiskCacheTests.bytes(2_000, seed: 1), large = DiskCacheTests.bytes(300_000, seed: 2)
        do {
            let cache = try DiskCache(directory: directory.path)
            await cache.storeData(small, for: "small")
            await cache.storeData(large, for: "large")   // a file in blobs/
        }
        try Self.checkpoint(directory.path)
        let mount = try ReadOnlyMount(source: directory.path)
        #expect(access(mount.path, W_OK) != 0)

        let cache = try DiskCache(directory: mount.path)
        #expect(cache.isReadOnly)
        for _ in 0..<70 {   // past the access-time batch, whose write is skipped, not failed
            #expect(await cache.cachedData(for: "small") == small)
        }
        #expect(await cache.cachedData(for: "large") == large)
        await cache.storeData([1, 2, 3], for: "new")   // skipped, not an error
        #expect(await cache.cachedData(for: "new") == nil)
        let statistics = cache.statistics
        #expect(statistics.diskHits == 71 && statistics.diskFailures == 0 && statistics.diskRejected == 0)
    }

    @Test("A pipeline over a read-only cache gets its thumbnails from disk, with no download")
    func pipelineHits() async throws {
        let loads = Locked(0)
        let request = ImageRequest(source: .custom(id: "rocket") {
            loads.withLock { $0 += 1 }
            return try [UInt8](Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("ImageryCodecsTests/Resources/jpeg_small_base_rocket_640x427.jpg")))
        }, resize: .fit(width: 64, height: 64))
        do {
            let writer = ImagePipeline(configuration: .standard.with { $0.useDiskCache(directory: directory.path) })
            _ = try await writer.response(for: request)
            await writer.waitUntilIdle()
        }
        try Self.checkpoint(directory.path)
        let mount = try ReadOnlyMount(source: directory.path)
        var configuration = ImagePipeline.Configuration.standard
        #expect(configuration.useDiskCache(directory: mount.path) == nil)
        let reader = ImagePipeline(configuration: configuration)
        let response = try await reader.response(for: request)
        #expect(response.origin == .disk)
        #expect(loads.withLock { $0 } == 1)
        await reader.waitUntilIdle()
        #expect(reader.statistics.diskFailures == 0)
    }
}
