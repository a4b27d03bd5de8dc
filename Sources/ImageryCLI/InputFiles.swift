import Foundation
import Imagery
import ImageryCodecs
#if canImport(Glibc)
import Glibc
#endif

/// Expands directories into the image files inside them (by content, so any name works).
///
/// - Images in formats this build cannot decode are skipped, and counted in `skipped`.
/// - Entries that cannot be read (no permission, a symlink loop) or are not regular files
///   (FIFOs, sockets, devices) are failures with the reason, so the run reports them and exits 1.
///   Nothing here opens a file in a way that can block: a FIFO is recognised by `stat`.
/// - Sub-directories and hidden entries are passed over; files that are not images are ignored.
/// - A file named on the command line is always attempted, so its failure is reported.
enum InputFiles {
    static func expand(_ inputs: [String]) -> (paths: [String], failures: [ThumbnailJob.Failure], skipped: [ImageFormat: Int]) {
        var paths: [String] = []
        var failures: [ThumbnailJob.Failure] = []
        var skipped: [ImageFormat: Int] = [:]
        for input in inputs {
            var info = stat()
            guard stat(input, &info) == 0 else {
                failures.append(.init(path: input, reason: FileDataLoader.reason(errno)))
                continue
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                paths.append(input)
                continue
            }
            let entries: [String]
            do {
                entries = try FileManager.default.contentsOfDirectory(atPath: input)
            } catch {
                failures.append(.init(path: input, reason: "cannot list the directory: \(FileDataLoader.reason(errno == 0 ? EACCES : errno))"))
                continue
            }
            for entry in entries.sorted() where !entry.hasPrefix(".") {
                let path = (input as NSString).appendingPathComponent(entry)
                switch probe(path) {
                case .image(let format) where ImageDecoder.supportedFormats.contains(format): paths.append(path)
                case .image(let format): skipped[format, default: 0] += 1
                case .failure(let reason): failures.append(.init(path: path, reason: reason))
                case .ignored: break
                }
            }
        }
        return (paths, failures, skipped)
    }

    private enum Probe {
        case image(ImageFormat)
        case failure(String)
        case ignored
    }

    /// What a directory entry is, from `stat` and its first bytes (read without blocking).
    private static func probe(_ path: String) -> Probe {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(FileDataLoader.reason(errno)) }
        if info.st_mode & S_IFMT == S_IFDIR { return .ignored }
        if let kind = FileDataLoader.irregularKind(info.st_mode) { return .failure("not a regular file (\(kind))") }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(FileDataLoader.reason(errno)) }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 32)
        let count = read(fd, &head, head.count)
        guard count >= 0 else { return .failure(FileDataLoader.reason(errno)) }
        return ImageFormat(sniffing: head.prefix(count)).map { .image($0) } ?? .ignored
    }
}
