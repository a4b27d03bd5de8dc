import Foundation
import GRDB
import Imagery
import Logging

/// The disk tier: entries in one SQLite database (WAL mode, through GRDB) in a directory you
/// choose, each with a checksum, bounded by size (least recently used out) and optionally by age.
///
/// - Every write is one SQLite transaction, so a reader never sees half an entry, and a crash
///   mid-write leaves the previous state.
/// - Readers run concurrently with the writer (WAL), so a read never waits for a write, and
///   several processes can share one directory.
/// - An entry that fails its checksum is deleted, counted, and never served.
/// - Last-access times are batched in memory and written together, not one write per read.
///
/// ```swift
/// let disk = try DiskCache(directory: "/var/cache/imagery")
/// await disk.storeData(bytes, for: "https://example.com/a.jpg")
/// let hit = await disk.cachedData(for: "https://example.com/a.jpg")
/// ```
public final class DiskCache: DataCaching {
    /// Bounds and clocks.
    public struct Configuration: Sendable {
        /// Total bytes of entries kept; past it, the least recently used are removed in the
        /// background until the total is under 90% of it. Default: 300 MiB.
        public var sizeLimit: Int = 300 << 20
        /// How long an entry is served after it was stored, or `nil` for no limit. Default: `nil`.
        public var timeToLive: Duration?
        /// Reads whose access times are held in memory before they are written. Default: 64.
        public var accessBatchSize = 64
        /// Where failures are reported (one warning, then counted). Default: label `"imagery.disk-cache"`.
        public var logger = Logger(label: "imagery.disk-cache")
        /// The wall clock (entries outlive the process, so this is not a monotonic clock);
        /// tests inject one they control. Default: `Date()`.
        public var now: @Sendable () -> Date = { Date() }

        /// The defaults: 300 MiB, no time to live.
        public init() {}
    }

    /// Counters since the cache was opened.
    public struct Statistics: Sendable, Hashable {
        public var hits = 0
        public var misses = 0
        public var writes = 0
        public var evictions = 0
        /// Entries that failed their checksum and were deleted.
        public var rejected = 0
        /// Reads or writes SQLite refused (disk full, read-only): the caller carried on without.
        public var failures = 0
    }

    static let applicationID: Int32 = 0x494D_4752   // "IMGR"
    static let schemaVersion = 1

    /// The directory the cache lives in.
    public let directory: String
    /// Its bounds.
    public let configuration: Configuration
    private let pool: DatabasePool
    private let state = Locked(State())

    private struct State {
        var statistics = Statistics()
        var pendingAccess: [String: Double] = [:]
        var approximateSize = 0
        var trimming = false
    }

    /// Opens (or creates) the cache in `directory`.
    ///
    /// - Throws: ``DiskCacheError`` when the directory cannot be used, the database is not an
    ///   Imagery cache, or it comes from a newer schema. A pipeline given no disk cache keeps
    ///   working from memory and the source.
    public init(directory: String, configuration: Configuration = Configuration()) throws(DiskCacheError) {
        self.directory = directory
        self.configuration = configuration
        let path = (directory as NSString).appendingPathComponent("cache.sqlite")
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .directoryUnusable(path: directory, detail: error.localizedDescription)
        }
        var options = GRDB.Configuration()
        options.busyMode = .timeout(10)
        options.label = "imagery.disk-cache"
        do {
            pool = try DatabasePool(path: path, configuration: options)
            try Self.prepareSchema(pool, path: path)
            let size = try pool.read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM entry") } ?? 0
            state.withLock { $0.approximateSize = size }
        } catch let error as DiskCacheError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw .notACache(path: path)
        } catch {
            throw .databaseFailed(path: path, detail: String(describing: error))
        }
    }

    private static func prepareSchema(_ pool: DatabasePool, path: String) throws {
        try pool.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                let objects = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                if application == 0, objects == 0 {
                    try db.execute(sql: """
                        CREATE TABLE entry (
                            key TEXT PRIMARY KEY NOT NULL,
                            data BLOB NOT NULL,
                            size INTEGER NOT NULL,
                            checksum INTEGER NOT NULL,
                            created REAL NOT NULL,
                            accessed REAL NOT NULL
                        );
                        CREATE INDEX entry_accessed ON entry(accessed);
                        PRAGMA application_id = \(applicationID);
                        PRAGMA user_version = \(schemaVersion);
                        """)
                } else if application != applicationID {
                    throw DiskCacheError.notACache(path: path)
                } else if version > schemaVersion {
                    throw DiskCacheError.futureSchema(path: path, found: version, supported: schemaVersion)
                }
                return .commit
            }
        }
    }

    /// Counters since the cache was opened.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    public var counters: DataCacheCounters {
        let statistics = self.statistics
        return DataCacheCounters(evictions: statistics.evictions, rejected: statistics.rejected, failures: statistics.failures)
    }

    /// Counts a failed read or write, and logs the first one: a full disk or a read-only
    /// directory turns the disk tier into a no-op, and one warning says why.
    private func recordFailure(_ error: any Error, during operation: String) {
        let first = state.withLock { state -> Bool in
            state.statistics.failures += 1
            return state.statistics.failures == 1
        }
        if first {
            configuration.logger.warning(
                "disk cache \(operation) failed; the pipeline carries on from memory and the source",
                metadata: ["directory": "\(directory)", "error": "\(error)"]
            )
        }
    }

    public func cachedData(for key: String) async -> [UInt8]? {
        let row: (data: Data, checksum: Int64, created: Double)?
        do {
            row = try await pool.read { db in
                try Row.fetchOne(db, sql: "SELECT data, checksum, created FROM entry WHERE key = ?", arguments: [key])
                    .map { ($0["data"], $0["checksum"], $0["created"]) }
            }
        } catch {
            recordFailure(error, during: "read")
            return nil
        }
        guard let row else {
            state.withLock { $0.statistics.misses += 1 }
            return nil
        }
        let now = configuration.now().timeIntervalSince1970
        if let ttl = configuration.timeToLive, row.created + ttl.seconds <= now {
            state.withLock { $0.statistics.misses += 1 }
            await removeData(for: key)
            return nil
        }
        let bytes = [UInt8](row.data)
        guard Checksum.of(bytes) == row.checksum else {
            state.withLock { $0.statistics.rejected += 1 }
            await removeData(for: key)
            return nil
        }
        let batch = state.withLock { state -> [String: Double]? in
            state.statistics.hits += 1
            state.pendingAccess[key] = now
            guard state.pendingAccess.count >= configuration.accessBatchSize else { return nil }
            defer { state.pendingAccess = [:] }
            return state.pendingAccess
        }
        if let batch { await writeAccessTimes(batch) }
        return bytes
    }

    public func storeData(_ data: [UInt8], for key: String) async {
        let now = configuration.now().timeIntervalSince1970
        let checksum = Checksum.of(data)
        do {
            try await pool.write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO entry (key, data, size, checksum, created, accessed) VALUES (?, ?, ?, ?, ?, ?)",
                    arguments: [key, Data(data), data.count, checksum, now, now]
                )
            }
        } catch {
            recordFailure(error, during: "write")
            return
        }
        let needsTrim = state.withLock { state -> Bool in
            state.statistics.writes += 1
            state.approximateSize += data.count
            guard state.approximateSize > configuration.sizeLimit, !state.trimming else { return false }
            state.trimming = true
            return true
        }
        if needsTrim { Task.detached(priority: .utility) { await self.trim() } }
    }

    public func removeData(for key: String) async {
        _ = try? await pool.write { db in try db.execute(sql: "DELETE FROM entry WHERE key = ?", arguments: [key]) }
    }

    public func removeAll() async {
        _ = try? await pool.write { db in try db.execute(sql: "DELETE FROM entry") }
        state.withLock { $0.approximateSize = 0 }
    }

    /// Writes pending access times now (they are otherwise written every
    /// ``Configuration/accessBatchSize`` reads).
    public func flush() async {
        let batch = state.withLock { state -> [String: Double] in
            defer { state.pendingAccess = [:] }
            return state.pendingAccess
        }
        if !batch.isEmpty { await writeAccessTimes(batch) }
    }

    private func writeAccessTimes(_ batch: [String: Double]) async {
        _ = try? await pool.write { db in
            for (key, time) in batch {
                try db.execute(sql: "UPDATE entry SET accessed = ? WHERE key = ?", arguments: [time, key])
            }
        }
    }

    /// Removes least recently used entries until the total is under 90% of the limit.
    /// Runs in the background; readers are never blocked (WAL).
    func trim() async {
        await flush()
        let target = configuration.sizeLimit / 10 * 9
        let removed: Int = (try? await pool.write { db -> Int in
            var total = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM entry") ?? 0
            var removed = 0
            while total > target {
                let victims = try Row.fetchAll(db, sql: "SELECT key, size FROM entry ORDER BY accessed ASC LIMIT 64")
                if victims.isEmpty { break }
                for victim in victims where total > target {
                    try db.execute(sql: "DELETE FROM entry WHERE key = ?", arguments: [victim["key"] as String])
                    total -= victim["size"] as Int
                    removed += 1
                }
            }
            return removed
        }) ?? 0
        let total = ((try? await pool.read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM entry") }) ?? nil) ?? 0
        state.withLock { state in
            state.statistics.evictions += removed
            state.approximateSize = total
            state.trimming = false
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
