/// Why a disk cache could not be opened.
public enum DiskCacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The directory could not be created or written.
    case directoryUnusable(path: String, detail: String)
    /// The database file exists but is not an Imagery cache: it is left untouched.
    case notACache(path: String)
    /// The cache was written by a newer Imagery (schema `found`, this build reads up to
    /// `supported`): it is refused rather than overwritten.
    case futureSchema(path: String, found: Int, supported: Int)
    /// SQLite refused to open or initialise the database.
    case databaseFailed(path: String, detail: String)

    public var description: String {
        switch self {
        case let .directoryUnusable(path, detail): "disk cache directory \(path) is unusable: \(detail)"
        case let .notACache(path): "\(path) is not an Imagery disk cache; leaving it untouched"
        case let .futureSchema(path, found, supported):
            "disk cache \(path) has schema \(found), newer than this build's \(supported); refusing to overwrite it"
        case let .databaseFailed(path, detail): "disk cache database \(path) failed: \(detail)"
        }
    }
}
