#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads local files with POSIX calls straight into the result buffer (no `Data` copy).
///
/// The file is opened non-blocking and checked with `fstat` before anything is read, so a FIFO,
/// socket or device fails at once with "not a regular file" instead of blocking in `open` or
/// `read` forever, and its size is checked against the limit before a byte is read.
package enum FileDataLoader {
    @concurrent
    static func load(path: String, limit: Int) async throws(DataLoadingError) -> [UInt8] {
        if Task.isCancelled { throw .cancelled }
        return try contents(ofFile: path, limit: limit)
    }

    /// The contents of the regular file at `path`, at most `limit` bytes.
    ///
    /// - Throws: ``DataLoadingError/notFound(source:)`` when there is no such file,
    ///   ``DataLoadingError/tooLarge(source:limit:)`` past the limit, and
    ///   ``DataLoadingError/fileUnreadable(path:detail:)`` for anything else, with the system's
    ///   reason ("Permission denied", "Too many levels of symbolic links") or
    ///   "not a regular file (a FIFO)" and its like.
    package static func contents(ofFile path: String, limit: Int) throws(DataLoadingError) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, forever.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            // A socket cannot be opened at all (ENXIO): say what it is rather than why open failed.
            var info = stat()
            if stat(path, &info) == 0, let kind = irregularKind(info.st_mode) {
                throw .fileUnreadable(path: path, detail: "not a regular file (\(kind))")
            }
            throw error(code, path: path)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw error(errno, path: path) }
        if let kind = irregularKind(info.st_mode) {
            throw .fileUnreadable(path: path, detail: "not a regular file (\(kind))")
        }
        let size = Int(info.st_size)
        guard size <= limit else { throw .tooLarge(source: path, limit: limit) }

        var readError: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let n = read(fd, buffer.baseAddress! + count, size - count)
                if n < 0, errno == EINTR { continue }
                if n < 0 { readError = errno; return }
                if n == 0 { return }   // the file shrank while we read: return what is there
                count += n
            }
        }
        if readError != 0 { throw error(readError, path: path) }
        return bytes
    }

    /// What a file of mode `mode` is, when it is not a regular file: "a FIFO", "a directory" …
    package static func irregularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "an unknown kind of file"
        }
    }

    /// The system's reason for `code`, as people read it.
    package static func reason(_ code: Int32) -> String {
        String(cString: strerror(code))
    }

    private static func error(_ code: Int32, path: String) -> DataLoadingError {
        if code == ENOENT || code == ENOTDIR { return .notFound(source: path) }
        return .fileUnreadable(path: path, detail: reason(code))
    }
}
