import Foundation
import GRDB
import Imagery
import Logging
import Metrics

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
        /// Entries this large or larger are stored as files beside the database, which reads
        /// them faster than a SQLite blob. Default: 128 KiB.
        public var fileThreshold = 128 << 10
        /// Reads whose access times are held in memory before they are written. Default: 64.
        public var accessBatchSize = 64
        /// How long a read or write waits while another process sharing the directory holds
        /// the database's write lock. Past it, a write is dropped (counted in `diskFailures`)
        /// and a read is a miss: a cache never stalls the pipeline for long. Default: 10 s.
        public var lockTimeout: Duration = .seconds(10)
        /// Where failures are reported (one warning, then counted). Default: label `"imagery.disk-cache"`.
        public var logger = Logger(label: "imagery.disk-cache")
        /// The prefix of its swift-metrics counters (`imagery_disk_evictions_total`,
        /// `imagery_disk_rejected_total`, `imagery_disk_failures_total`). Default: `"imagery"`.
        public var metricsPrefix = "imagery"
        /// The wall clock (entries outlive the process, so this is not a monotonic clock);
        /// tests inject one they control. Default: `Date()`.
        public var now: @Sendable () -> Date = { Date() }

        /// The defaults: 300 MiB, no time to live.
        public init() {}
    }

    /// The directory the cache lives in.
    public let directory: String
    /// Whether the cache was opened read-only, because its directory cannot be written: it
    /// serves hits, and stores, removals, trims and access times are skipped.
    public let isReadOnly: Bool
    /// Its bounds.
    public let configuration: Configuration
    let pool: DatabasePool
    let blobs: BlobFiles
    let state = Locked(State())
    let metrics: DiskCacheMetrics

    struct State {
        var statistics = ImagePipeline.Statistics()
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
        self.metrics = DiskCacheMetrics(prefix: configuration.metricsPrefix)
        let path = (directory as NSString).appendingPathComponent("cache.sqlite")
        blobs = BlobFiles(directory: (directory as NSString).appendingPathComponent("blobs"))
        // A good cache in a directory this process may not write (a read-only mount, a cache
        // shipped with an app): open it read-only and serve hits, rather than fail on the
        // first write and serve nothing.
        isReadOnly = FileManager.default.fileExists(atPath: path) && access(directory, W_OK) != 0
        if !isReadOnly { try Self.makeDirectory(directory) }
        var options = GRDB.Configuration()
        options.busyMode = .timeout(configuration.lockTimeout.seconds)
        options.label = "imagery.disk-cache"
        if isReadOnly {
            options.readonly = true
        } else {
            // WAL with synchronous=NORMAL: a commit is atomic and survives a crash of the
            // process (the test kills writers with SIGKILL); only a power loss can drop the last
            // commits, never corrupt earlier ones. FULL would fsync on every entry.
            options.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        }
        do {
            if isReadOnly {
                // SQLite cannot create or update the write-ahead log's index (-shm) in a
                // read-only directory, so the database is opened `immutable`: what its file
                // holds, which is everything once its last writer closed (or checkpointed).
                // Entries still only in the log of a writer that never closed are not seen;
                // nothing unverified is ever served, as every entry carries its checksum.
                pool = try Self.openPool(path: Self.immutableURI(path), configuration: options)
                try Self.checkSchema(pool, path: path)
            } else {
                pool = try Self.openPool(path: path, configuration: options)
                try Self.prepareSchema(pool, path: path)
                try Self.makeDirectory(blobs.directory)
            }
            let size = try pool.read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM entry") } ?? 0
            state.withLock { $0.approximateSize = size }
            if !isReadOnly { Task.detached(priority: .background) { [self] in await removeOrphanedFiles() } }
        } catch let error as DiskCacheError {
            throw error
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            throw .notACache(path: path)
        } catch {
            throw .databaseFailed(path: path, detail: String(describing: error))
        }
    }

    /// The SQLite URI that opens `path` read-only and immutable.
    private static func immutableURI(_ path: String) -> String {
        let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        return "file:" + escaped + "?immutable=1"
    }

    /// Opens (or creates) the cache in the directory at a file URL.
    ///
    /// ```swift
    /// let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask)[0]
    /// let disk = try DiskCache(directory: caches.appendingPathComponent("images"))
    /// ```
    public convenience init(directory: URL, configuration: Configuration = Configuration()) throws(DiskCacheError) {
        try self.init(directory: directory.path, configuration: configuration)
    }

    /// Creates `path` and its parents, or says in words what is wrong with it (Foundation's
    /// own error reads "(NSCocoaErrorDomain error 512.)" for a file in the way).
    private static func makeDirectory(_ path: String) throws(DiskCacheError) {
        var current = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            current += "/" + component
            guard mkdir(current, 0o755) != 0 else { continue }
            let code = errno
            var info = stat()
            if code == EEXIST, stat(current, &info) == 0 {
                if info.st_mode & S_IFMT == S_IFDIR { continue }
                let detail = current == path ? "it is a file, not a directory" : "\(current) is a file, not a directory"
                throw .directoryUnusable(path: path, detail: detail)
            }
            throw .directoryUnusable(path: path, detail: "cannot create it: " + String(cString: strerror(code)))
        }
    }

    /// Opens the pool, retrying while another process holds a lock. Opening runs
    /// `PRAGMA journal_mode = WAL`, which SQLite answers with SQLITE_BUSY, without consulting
    /// the busy timeout, when another process is writing at that moment (seen with two
    /// processes starting together). Gives up after about five seconds.
    private static func openPool(path: String, configuration: GRDB.Configuration) throws -> DatabasePool {
        var attempt = 0
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 100 {
                attempt += 1
                usleep(50_000)
            }
        }
    }

    /// Counters since the cache was opened, in the `disk…` fields of the pipeline's one
    /// statistics type: `diskHits`, `diskMisses`, `diskWrites`, `diskEvictions`,
    /// `diskRejected` and `diskFailures`.
    ///
    /// ```swift
    /// let stats = disk.statistics
    /// print("\(stats.diskHits) hits, \(stats.diskRejected) rejected")
    /// ```
    public var statistics: ImagePipeline.Statistics { state.withLock { $0.statistics } }

    /// Counts a failed read or write, and logs the first one: a full disk or a read-only
    /// directory turns the disk tier into a no-op, and one warning says why.
    func recordFailure(_ error: any Error, during operation: String) {
        let first = state.withLock { state -> Bool in
            state.statistics.diskFailures += 1
            return state.statistics.diskFailures == 1
        }
        metrics.failures.increment()
        if first {
            configuration.logger.warning(
                "disk cache \(operation) failed; the pipeline carries on from memory and the source",
                metadata: ["directory": "\(directory)", "error": "\(error)"]
            )
        }
    }

    /// Runs on the concurrent pool and reads synchronously: a SQLite read of one row takes a
    /// few microseconds, less than GRDB's async hop to its reader queue and back, which
    /// dominated a small read (Benchmarks/README.md, "Disk cache").
    @concurrent
    public func cachedData(for key: String) async -> [UInt8]? {
        var found: StoredEntry?
        do {
            found = try readEntry(key)
        } catch {
            recordFailure(error, during: "read")
            return nil
        }
        guard var row = found else {
            state.withLock { $0.statistics.diskMisses += 1 }
            return nil
        }
        let now = configuration.now().timeIntervalSince1970
        if let ttl = configuration.timeToLive, row.created + ttl.seconds <= now {
            state.withLock { $0.statistics.diskMisses += 1 }
            await removeEntry(key, matching: row)
            return nil
        }
        var bytes = verifiedContents(of: row)
        if bytes == nil, let fresh = try? readEntry(key), fresh != row {
            // A writer (in this process or another) replaced the entry and deleted the file our
            // row named after the row was read: that is not damage. Read the new entry instead.
            row = fresh
            bytes = verifiedContents(of: fresh)
        }
        guard let bytes else {
            state.withLock { $0.statistics.diskRejected += 1 }
            metrics.rejected.increment()
            await removeEntry(key, matching: row)
            return nil
        }
        let batch = state.withLock { state -> [String: Double]? in
            state.statistics.diskHits += 1
            state.pendingAccess[key] = now
            guard state.pendingAccess.count >= configuration.accessBatchSize else { return nil }
            defer { state.pendingAccess = [:] }
            return state.pendingAccess
        }
        if let batch { await writeAccessTimes(batch) }
        return bytes
    }

    /// The entry's bytes if they match its checksum; `nil` if they do not or its file is gone.
    private func verifiedContents(of entry: StoredEntry) -> [UInt8]? {
        guard let bytes = entry.file.map({ blobs.read($0) }) ?? [UInt8](entry.data),
              Checksum.of(bytes) == entry.checksum else { return nil }
        return bytes
    }

    /// Deletes `key` only if it is still the entry that was read, so that a rejected or
    /// expired entry never takes a newer, valid replacement with it.
    private func removeEntry(_ key: String, matching entry: StoredEntry) async {
        guard !isReadOnly else { return }
        let removed = (try? await pool.write { db -> Bool in
            try db.execute(
                sql: "DELETE FROM entry WHERE key = ? AND checksum = ? AND created = ? AND file IS ?",
                arguments: [key, entry.checksum, entry.created, entry.file]
            )
            return db.changesCount > 0
        }) ?? false
        if removed, let file = entry.file { blobs.remove(file) }
    }

    struct StoredEntry: Sendable, Equatable {
        let data: Data
        let file: String?
        let checksum: Int64
        let created: Double
    }

    /// A synchronous read (see ``cachedData(for:)``).
    private func readEntry(_ key: String) throws -> StoredEntry? {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT data, file, checksum, created FROM entry WHERE key = ?", arguments: [key])
                .map { StoredEntry(data: $0["data"], file: $0["file"], checksum: $0["checksum"], created: $0["created"]) }
        }
    }

    /// Writes one row in one transaction and returns the file the row named before. Async:
    /// waiting for the write lock (another process may hold it) suspends instead of blocking
    /// a thread of the cooperative pool.
    private func writeEntry(key: String, inline: Data, file: String?, size: Int, checksum: Int64, now: Double) async throws -> String? {
        try await pool.write { db -> String? in
            let old = try String.fetchOne(db, sql: "SELECT file FROM entry WHERE key = ?", arguments: [key])
            try db.execute(
                sql: "INSERT OR REPLACE INTO entry (key, data, file, size, checksum, created, accessed) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [key, inline, file, size, checksum, now, now]
            )
            return old
        }
    }

    /// Stores `data`: inline, or as a file renamed into place before the row that names it
    /// commits. Runs off the caller's executor.
    @concurrent
    public func storeData(_ data: [UInt8], for key: String) async {
        guard !isReadOnly else { return }
        let now = configuration.now().timeIntervalSince1970
        let checksum = Checksum.of(data)
        var file: String?
        do {
            if data.count >= configuration.fileThreshold { file = try blobs.write(data) }
            let replaced = try await writeEntry(
                key: key, inline: file == nil ? Data(data) : Data(), file: file, size: data.count, checksum: checksum, now: now
            )
            if let replaced, replaced != file { blobs.remove(replaced) }
        } catch {
            if let file { blobs.remove(file) }
            recordFailure(error, during: "write")
            return
        }
        recordWrites(1, bytes: data.count)
    }

    /// Counts committed writes and starts a background trim when they took the cache past its
    /// size limit.
    func recordWrites(_ count: Int, bytes: Int) {
        let needsTrim = state.withLock { state -> Bool in
            state.statistics.diskWrites += count
            state.approximateSize += bytes
            guard state.approximateSize > configuration.sizeLimit, !state.trimming else { return false }
            state.trimming = true
            return true
        }
        if needsTrim { Task.detached(priority: .utility) { await self.trim() } }
    }
}
