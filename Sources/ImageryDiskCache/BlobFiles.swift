import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Large entries live as files in `blobs/`, indexed by the database: `imagery-bench
/// disk-cache` reads large entries faster from a file than from a SQLite blob, and small ones
/// faster inline (Benchmarks/README.md has the figures behind the threshold).
///
/// A file is written under a temporary name and renamed into place before the row that names
/// it commits, so a committed row never names a missing or partial file; a crash can only
/// leave an unreferenced file, which ``removeOrphans(keeping:)`` deletes.
struct BlobFiles: Sendable {
    let directory: String

    init(directory: String) {
        self.directory = directory
    }

    /// Creates `blobs/`: only once the database has proved to be a cache, so that a foreign
    /// `cache.sqlite` never gets a folder created beside it.
    func createDirectory() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Writes `bytes` to a new file and returns its name.
    func write(_ bytes: [UInt8]) throws -> String {
        let name = UUID().uuidString.lowercased()
        let temporary = directory + "/." + name + ".partial"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var written = 0
        let failed: Int32? = bytes.withUnsafeBytes { raw in
            while written < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { return errno }
                written += n
            }
            return nil
        }
        close(fd)
        if let failed {
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: failed) ?? .EIO)
        }
        guard rename(temporary, directory + "/" + name) == 0 else {
            let code = errno
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        return name
    }

    /// The file's bytes, or `nil` if it is missing or unreadable.
    func read(_ name: String) -> [UInt8]? {
        guard !name.contains("/") else { return nil }
        let fd = open(directory + "/" + name, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let n = Glibc.read(fd, buffer.baseAddress! + count, size - count)
                if n < 0, errno == EINTR { continue }
                if n <= 0 { failed = n < 0; return }
                count += n
            }
        }
        return failed ? nil : bytes
    }

    func remove(_ name: String) {
        guard !name.contains("/") else { return }
        unlink(directory + "/" + name)
    }

    /// Deletes files no row names (left by a crash between writing a file and committing its
    /// row, or between committing a replacement and deleting the old file). Files younger than
    /// a minute are spared: another process sharing the directory may be about to commit them.
    func removeOrphans(keeping referenced: Set<String>, now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where !referenced.contains(name) {
            var info = stat()
            guard stat(directory + "/" + name, &info) == 0 else { continue }
            if Double(info.st_mtim.tv_sec) < now.timeIntervalSince1970 - 60 { unlink(directory + "/" + name) }
        }
    }
}
