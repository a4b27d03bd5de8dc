import Metrics
import Foundation
import GRDB
import Imagery

extension DiskCache {
    /// Stores many entries in one transaction, as ``storeData(_:for:)`` would one at a time:
    /// large entries become files, files of replaced entries are removed, and the size limit
    /// is kept. For filling a cache quickly (the benchmark opens one of 100,000 entries).
    package func storeMany(_ entries: [(key: String, data: [UInt8])]) async {
        guard !isReadOnly else { return }
        let now = configuration.now().timeIntervalSince1970
        var rows: [(key: String, inline: Data, file: String?, size: Int, checksum: Int64)] = []
        var written: [String] = []
        do {
            for (key, data) in entries {
                let file = data.count >= configuration.fileThreshold ? try blobs.write(data) : nil
                if let file { written.append(file) }
                rows.append((key, file == nil ? Data(data) : Data(), file, data.count, Checksum.of(data)))
            }
            let insert = rows
            let replaced = try await pool.write { db -> [String] in
                var replaced: [String] = []
                for row in insert {
                    let old = try String.fetchOne(db, sql: "SELECT file FROM entry WHERE key = ?", arguments: [row.key])
                    if let old, old != row.file { replaced.append(old) }
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO entry (key, data, file, size, checksum, created, accessed) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        arguments: [row.key, row.inline, row.file, row.size, row.checksum, now, now]
                    )
                }
                return replaced
            }
            for file in replaced { blobs.remove(file) }
        } catch {
            for file in written { blobs.remove(file) }
            recordFailure(error, during: "write")
            return
        }
        recordWrites(rows.count, bytes: rows.reduce(0) { $0 + $1.size })
    }

    public func removeData(for key: String) async {
        guard !isReadOnly else { return }
        let file = try? await pool.write { db -> String? in
            let file = try String.fetchOne(db, sql: "SELECT file FROM entry WHERE key = ?", arguments: [key])
            try db.execute(sql: "DELETE FROM entry WHERE key = ?", arguments: [key])
            return file
        }
        if let file { blobs.remove(file) }
    }

    public func removeAll() async {
        guard !isReadOnly else { return }
        let files = (try? await pool.write { db -> [String] in
            let files = try String.fetchAll(db, sql: "SELECT file FROM entry WHERE file IS NOT NULL")
            try db.execute(sql: "DELETE FROM entry")
            return files
        }) ?? []
        for file in files { blobs.remove(file) }
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

    func writeAccessTimes(_ batch: [String: Double]) async {
        guard !isReadOnly else { return }
        _ = try? await pool.write { db in
            for (key, time) in batch {
                try db.execute(sql: "UPDATE entry SET accessed = ? WHERE key = ?", arguments: [time, key])
            }
        }
    }

    /// Removes least recently used entries until the total is under 90% of the limit.
    /// Runs in the background; readers are never blocked (WAL).
    func trim() async {
        guard !isReadOnly else { return }
        await flush()
        let target = configuration.sizeLimit / 10 * 9
        let removed: [String?] = (try? await pool.writeWithoutTransaction { db -> [String?] in
            var removed: [String?] = []
            try db.inTransaction {
                removed = []
                var total = try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM entry") ?? 0
                while total > target {
                    let victims = try Row.fetchAll(db, sql: "SELECT key, size, file FROM entry ORDER BY accessed ASC LIMIT 64")
                    if victims.isEmpty { break }
                    for victim in victims where total > target {
                        try db.execute(sql: "DELETE FROM entry WHERE key = ?", arguments: [victim["key"] as String])
                        total -= victim["size"] as Int
                        removed.append(victim["file"])
                    }
                }
                return .commit
            }
            // Counted once committed, while this trim still holds the writer: a later trim or
            // a reader of the statistics never sees rows gone but not yet counted.
            metrics.evictions.increment(by: removed.count)
            state.withLock { $0.statistics.diskEvictions += removed.count }
            return removed
        }) ?? []
        for case let file? in removed { blobs.remove(file) }
        let total = ((try? await pool.read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM entry") }) ?? nil) ?? 0
        state.withLock { state in
            state.approximateSize = total
            state.trimming = false
        }
    }

    /// How many entries the database holds now, written by this process or any other sharing
    /// the directory; `nil` when it cannot be read.
    ///
    /// ```swift
    /// if let count = await disk.entryCount() { print("\(count) entries") }
    /// ```
    public func entryCount() async -> Int? {
        try? await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM entry") } ?? 0
    }

    /// Deletes blob files that no row names (see ``BlobFiles/removeOrphans(keeping:now:)``).
    func removeOrphanedFiles() async {
        guard let referenced = try? await pool.read({ db in
            Set(try String.fetchAll(db, sql: "SELECT file FROM entry WHERE file IS NOT NULL"))
        }) else { return }
        blobs.removeOrphans(keeping: referenced)
    }
}
