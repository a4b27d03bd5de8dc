import GRDB

extension DiskCache {
    static let applicationID: Int32 = 0x494D_4752   // "IMGR"
    static let schemaVersion = 1

    /// Creates the schema in an empty database, and refuses a database that is someone else's
    /// (another `application_id`) or from a newer Imagery (a higher `user_version`). Runs in an
    /// immediate transaction, so two processes opening a new cache at once create it once.
    static func prepareSchema(_ pool: DatabasePool, path: String) throws {
        try pool.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                let objects = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                if application == 0, objects == 0 {
                    // `data` holds small entries inline; large ones live in `blobs/<file>`.
                    try db.execute(sql: """
                        CREATE TABLE entry (
                            key TEXT PRIMARY KEY NOT NULL,
                            data BLOB NOT NULL,
                            file TEXT,
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

    /// ``prepareSchema(_:path:)`` for a cache opened read-only: the same refusals, no changes.
    static func checkSchema(_ pool: DatabasePool, path: String) throws {
        try pool.read { db in
            let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            if application != applicationID { throw DiskCacheError.notACache(path: path) }
            if version > schemaVersion { throw DiskCacheError.futureSchema(path: path, found: version, supported: schemaVersion) }
        }
    }
}
