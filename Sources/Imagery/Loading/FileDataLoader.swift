#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads local files with POSIX calls straight into the result buffer (no `Data` copy),
/// checking the size against the limit before reading.
enum FileDataLoader {
    @concurrent
    static func load(path: String, limit: Int) async throws(DataLoadingError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw error(errno, path: path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw error(errno, path: path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .fileUnreadable(path: path, detail: "not a regular file")
        }
        let size = Int(info.st_size)
        guard size <= limit else { throw .tooLarge(source: path, limit: limit) }
        if Task.isCancelled { throw .cancelled }

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

    private static func error(_ code: Int32, path: String) -> DataLoadingError {
        if code == ENOENT || code == ENOTDIR { return .notFound(source: path) }
        return .fileUnreadable(path: path, detail: String(cString: strerror(code)))
    }
}
