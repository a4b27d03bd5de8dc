import Foundation
import Imagery
#if canImport(Glibc)
import Glibc
#endif

/// Runs an executable to its end and reports its exit status and peak resident memory, read
/// from `wait4` — the child's own figure, which tests running in parallel in this process
/// cannot blur.
package enum ChildProcess {
    package struct Outcome: Sendable {
        package var exitCode: Int32
        /// The child's peak resident set, in bytes.
        package var peakRSS: Int
        /// The CPU time the child used, user and system, in seconds.
        package var cpuSeconds: Double
        /// From spawn to exit, in seconds.
        package var wallSeconds: Double
    }

    /// The executable `name` built beside this test bundle, if it is there.
    package static func executable(_ name: String) -> String? {
        let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Runs `executable` with `arguments`, its output discarded, on a thread of its own (the
    /// wait blocks), and returns once it has exited.
    package static func run(_ executable: String, _ arguments: [String]) async throws -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let started = ContinuousClock.now
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT) }
        let child = pid
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var status: Int32 = 0
                var usage = rusage()
                while wait4(child, &status, 0, &usage) < 0, errno == EINTR {}
                let exitCode: Int32 = status & 0x7f == 0 ? (status >> 8) & 0xff : -1
                let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
                continuation.resume(returning: Outcome(
                    exitCode: exitCode, peakRSS: Int(usage.ru_maxrss) * 1024, cpuSeconds: cpu,
                    wallSeconds: (ContinuousClock.now - started).seconds
                ))
            }
        }
    }
}
