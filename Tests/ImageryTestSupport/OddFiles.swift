import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A directory holding the files that used to hang or mislead a loader: a FIFO (no writer ever
/// comes), a listening Unix socket, a symlink loop, a file nobody may read, and one real image.
/// Removed, socket closed, when released.
package final class OddFiles {
    package let directory: String
    package var fifo: String { directory + "/fifo.jpg" }
    package var socket: String { directory + "/socket.jpg" }
    package var loop: String { directory + "/loop-a.jpg" }
    package var unreadable: String { directory + "/unreadable.jpg" }
    package var image: String { directory + "/photo.jpg" }
    private let socketDescriptor: Int32

    /// Whether `unreadable` really is: root reads any file whatever its mode.
    package static var permissionsApply: Bool { geteuid() != 0 }

    package init(image bytes: [UInt8]) throws {
        directory = NSTemporaryDirectory() + "imagery-odd-files-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard mkfifo(directory + "/fifo.jpg", 0o644) == 0 else { throw POSIXError(.EIO) }
        try FileManager.default.createSymbolicLink(atPath: directory + "/loop-a.jpg", withDestinationPath: directory + "/loop-b.jpg")
        try FileManager.default.createSymbolicLink(atPath: directory + "/loop-b.jpg", withDestinationPath: directory + "/loop-a.jpg")
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/photo.jpg"))
        try Data(bytes).write(to: URL(fileURLWithPath: directory + "/unreadable.jpg"))
        chmod(directory + "/unreadable.jpg", 0)
        socketDescriptor = Self.bindSocket(at: directory + "/socket.jpg")
    }

    deinit {
        if socketDescriptor >= 0 { close(socketDescriptor) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func bindSocket(at path: String) -> Int32 {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, 1) == 0 else { close(fd); return -1 }
        return fd
    }
}
