import Foundation
import Imagery
#if canImport(Glibc)
import Glibc
#endif

/// Runs an executable to its end and reports how it ended, read from `wait4`: the child's own
/// figures, which tests running in parallel in this process cannot blur. ``measure(_:_:)`` also
/// reports its peak memory.
package enum ChildProcess {
    package struct Outcome: Sendable {
        package var exitCode: Int32
        /// The CPU time the child used, user and system, in seconds.
        package var cpuSeconds: Double
        /// From spawn to exit, in seconds.
        package var wallSeconds: Double
    }

    package struct Measurement: Sendable {
        package var exitCode: Int32
        /// The child's own peak resident set, in bytes.
        package var peakRSS: Int
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// `name` on the `PATH` (a tool such as `moto_server` or `openssl`), if installed.
    package static func onPath(_ name: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin")
            .split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name).path }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The executable `name` built beside this test bundle, if it is there.
    package static func executable(_ name: String) -> String? {
        let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// Runs `executable` through `imagery-peak-memory` and returns its exit code and its own
    /// peak resident set. (`wait4` here would report this test process's peak for every child:
    /// Linux folds the address space a process leaves at exec into its peak, and a spawned
    /// child leaves this one's. That executable says more.)
    package static func measure(_ executable: String, _ arguments: [String]) async throws -> Measurement {
        guard let launcher = Self.executable("imagery-peak-memory") else {
            throw Failure(description: "imagery-peak-memory is not beside the test bundle")
        }
        let report = NSTemporaryDirectory() + "imagery-peak-\(UUID().uuidString).txt"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let outcome = try await run(launcher, [executable] + arguments, output: report)
        let fields = (try? String(contentsOfFile: report, encoding: .utf8))?.split(whereSeparator: \.isWhitespace) ?? []
        guard outcome.exitCode == 0, fields.count == 2, let code = Int32(fields[0]), let kilobytes = Int(fields[1]) else {
            throw Failure(description: "imagery-peak-memory could not run \(executable) (exit \(outcome.exitCode))")
        }
        return Measurement(exitCode: code, peakRSS: kilobytes * 1024)
    }

    /// Runs `executable` with `arguments`, its standard output to the file `output` (or
    /// discarded) and its standard error discarded, on a thread of its own (the wait blocks),
    /// and returns once it has exited (killed if the calling task is cancelled first).
    /// `environment` is added to this process's.
    package static func run(
        _ executable: String, _ arguments: [String], output: String = "/dev/null", environment: [String: String] = [:]
    ) async throws -> Outcome {
        let started = ContinuousClock.now
        let child = try spawn(executable, arguments, output: output, environment: environment)
        // A cancelled test (its suite's time limit) kills the child, which ends the wait. The
        // child is marked exited before it is reaped, so the kill never reaches a reused PID.
        let exited = Locked(false)
        return await withTaskCancellationHandler {
            await wait(for: child, exited: exited, started: started)
        } onCancel: {
            exited.withLock { exited in if !exited { kill(child, SIGKILL) } }
        }
    }

    /// Whether python3 imports `module` (a PyPI package a test drives), for a test's
    /// `.enabled(if:)`. Blocks its caller until python3 exits, in `waitpid` (Foundation's
    /// `waitUntilExit` would spin a core meanwhile); python3 bounds an import itself.
    package static func pythonImports(_ module: String) -> Bool {
        guard let python = onPath("python3"), let child = try? spawn(python, ["-c", "import \(module)"]) else { return false }
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0, errno == EINTR {}
        return status == 0
    }

    private static func spawn(
        _ executable: String, _ arguments: [String], output: String = "/dev/null", environment: [String: String] = [:]
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in merged { free(pointer) } }
        let spawned = environment.isEmpty ? posix_spawn(&pid, executable, &actions, nil, argv, environ) : posix_spawn(&pid, executable, &actions, nil, argv, merged)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT) }
        return pid
    }

    private static func wait(for child: pid_t, exited: Locked<Bool>, started: ContinuousClock.Instant) async -> Outcome {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var info = siginfo_t()
                while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) < 0, errno == EINTR {}
                exited.withLock { $0 = true }
                var status: Int32 = 0
                var usage = rusage()
                while wait4(child, &status, 0, &usage) < 0, errno == EINTR {}
                let exitCode: Int32 = status & 0x7f == 0 ? (status >> 8) & 0xff : -1
                let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
                continuation.resume(returning: Outcome(
                    exitCode: exitCode, cpuSeconds: cpu, wallSeconds: (ContinuousClock.now - started).seconds
                ))
            }
        }
    }
}
