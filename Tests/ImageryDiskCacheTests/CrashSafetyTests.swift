import Foundation
@testable import Imagery
@testable import ImageryDiskCache
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `imagery-cache-stress` test-support executable, which this test target declares as a
/// dependency so SwiftPM builds it beside the test bundle; it writes (and optionally reads) a
/// cache in a loop.
///
/// Spawned with posix_spawn and watched by two plain threads (one reads its output, one
/// waits for it), not Foundation's `Process`, whose SIGCHLD dispatch source crashed in
/// libdispatch when several children ran at once.
final class StressProcess: Sendable {
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0])
        .deletingLastPathComponent().appendingPathComponent("imagery-cache-stress").path

    /// Whether the child was built (it is, by `swift test`; a test bundle run on its own may lack it).
    static var isBuilt: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    let pid: pid_t
    /// "wrote" once per entry the child reports, "exited" when it ends.
    let events = EventCounter()
    private let status = Locked<Int32?>(nil)

    init(_ arguments: [String]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        let argv = ([Self.executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, Self.executable, &actions, nil, argv, environ)
        close(fds[1])
        guard result == 0 else { close(fds[0]); throw POSIXError(POSIXErrorCode(rawValue: result) ?? .ENOENT) }
        self.pid = pid
        let reader = fds[0], events = self.events, status = self.status
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var carry = ""
            while true {
                let n = read(reader, &buffer, buffer.count)
                if n <= 0 { break }
                carry += String(decoding: buffer[..<n], as: UTF8.self)
                while let newline = carry.firstIndex(of: "\n") {
                    if carry[..<newline].hasPrefix("wrote ") { events.record("wrote") }
                    carry = String(carry[carry.index(after: newline)...])
                }
            }
            close(reader)
        }
        let child = pid
        Thread.detachNewThread {
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) < 0, errno == EINTR {}
            status.withLock { $0 = raw }
            events.record("exited")
        }
    }

    func kill() { _ = Glibc.kill(pid, SIGKILL) }

    /// Whether the child was killed by a signal (after "exited").
    var wasSignalled: Bool { status.withLock { ($0 ?? 0) & 0x7f != 0 } }
    /// The child's exit code (after "exited"), or -1 if it was killed.
    var exitCode: Int32 { status.withLock { raw in wasSignalledRaw(raw ?? 0) ? -1 : ((raw ?? 0) >> 8) & 0xff } }

    private func wasSignalledRaw(_ raw: Int32) -> Bool { raw & 0x7f != 0 }
}

@Suite(
    .serialized, .timeLimit(.minutes(10)), .tags(.integration), .offUnderSanitizer,
    .enabled(if: StressProcess.isBuilt, "the imagery-cache-stress executable is not beside the test bundle")
)
struct CrashSafetyTests {
    @Test("SIGKILL in the middle of writes never leaves an entry that fails its check", arguments: 0..<6)
    func killedWriterLeavesNoCorruptEntry(round: Int) async throws {
        let directory = TemporaryDirectory()
        let process = try StressProcess(["--directory", directory.path, "--seed", "\(round + 1)"])

        // Kill it after a random number of writes: mid-transaction, mid-checkpoint, anywhere.
        await process.events.wait(for: "wrote", count: Int.random(in: 5...80))
        process.kill()
        await process.events.wait(for: "exited")
        #expect(process.wasSignalled)

        let cache = try DiskCache(directory: directory.path)
        var found = 0
        for key in 0..<200 {
            guard let bytes = await cache.cachedData(for: "k\(key)") else { continue }
            found += 1
            #expect(StressPayload.isValid(bytes, key: key), "entry k\(key) does not match what was written")
        }
        #expect(found > 0)
        #expect(cache.statistics.diskRejected == 0)
    }

    @Test("Two processes reading and writing one cache directory at once")
    func twoProcesses() async throws {
        let directory = TemporaryDirectory()
        _ = try DiskCache(directory: directory.path)   // created once, then shared
        let processes = try (0..<2).map { index in
            try StressProcess(
                ["--directory", directory.path, "--iterations", "300", "--keys", "50", "--read", "--seed", "\(index + 10)"]
            )
        }
        for process in processes { await process.events.wait(for: "exited") }
        for process in processes { #expect(process.exitCode == 0) }

        // Then every key either process wrote is there, whole: the keys each wrote follow from
        // its seed, as the child draws them (key, size, then the key it reads).
        var written = Set<Int>()
        for seed in [UInt64(10), 11] {
            var random = SplitMix64(state: seed)
            for _ in 0..<300 {
                written.insert(Int(random.next() % 50))
                _ = random.next()
                _ = random.next()
            }
        }
        let cache = try DiskCache(directory: directory.path)
        var found = 0
        for key in written {
            guard let bytes = await cache.cachedData(for: "k\(key)") else { continue }
            found += 1
            #expect(StressPayload.isValid(bytes, key: key), "entry k\(key) does not match what was written")
        }
        #expect(found == written.count, "\(written.count - found) of \(written.count) written keys are missing")
        #expect(cache.statistics.diskRejected == 0)
    }
}
