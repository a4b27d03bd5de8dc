import Foundation
import Imagery
import ImageryTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A server as a child process (`imagery-server`, or nginx in front of several), its output
/// read for the line that says it is ready; stopped by its PID.
final class ServerProcess: Sendable {
    private let process: Process
    private let output: Pipe
    private let readyMarker: String
    private let watched: [String]
    private let lines = EventCounter()
    private let announced = Locked<Int?>(nil)
    private let transcript = Locked<[String]>([])
    /// Records "exit" when Foundation has reaped the process.
    private let exits: EventCounter

    private init(process: Process, output: Pipe, readyMarker: String, watched: [String], exits: EventCounter) {
        self.process = process
        self.output = output
        self.readyMarker = readyMarker
        self.watched = watched
        self.exits = exits
    }

    /// Starts the `imagery-server` built beside the tests; ready once it logs "listening".
    /// ``line(containing:)`` can await the lines that contain a string in `watching`.
    static func start(_ arguments: [String], watching: [String] = [], environment: [String: String] = [:]) throws -> ServerProcess {
        try start(
            executable: ChildProcess.executable("imagery-server")!, arguments, readyMarker: "listening", watching: watching,
            environment: generousLimits(besides: environment).merging(environment) { $1 }
        )
    }

    /// A request's and a graceful stop's limits far above the defaults: on a saturated
    /// two-core run a debug build's answer can wait minutes, and these tests check answers,
    /// not timings. A test that sets either (a flag wins over these) or an imgproxy name of
    /// it (which would disagree with these) keeps its own.
    private static func generousLimits(besides environment: [String: String]) -> [String: String] {
        var limits: [String: String] = [:]
        if !["IMGPROXY_TIMEOUT", "IMAGERY_TIMEOUT", "IMAGERY_REQUEST_TIMEOUT"].contains(where: { environment[$0] != nil }) {
            limits["IMAGERY_REQUEST_TIMEOUT"] = "600"
        }
        if !["IMGPROXY_GRACEFUL_STOP_TIMEOUT", "IMAGERY_GRACEFUL_STOP_TIMEOUT"].contains(where: { environment[$0] != nil }) {
            limits["IMAGERY_GRACEFUL_STOP_TIMEOUT"] = "600"
        }
        return limits
    }

    /// Starts `executable`, with `environment` added to this process's; ready once a line of
    /// its output contains `readyMarker`.
    static func start(
        executable: String, _ arguments: [String], readyMarker: String, watching: [String] = [], environment: [String: String] = [:]
    ) throws -> ServerProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // A runner's own OTEL_* (an SDK's, a CI's) would change what a child sends: only a test's reach it.
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("OTEL_") }.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        // Told of the exit rather than waiting in `waitUntilExit`, which spins a core on Linux
        // for as long as it waits: several tests waiting at once starved the whole run.
        let exits = EventCounter()
        process.terminationHandler = { _ in exits.record("exit") }
        try process.run()
        let server = ServerProcess(process: process, output: output, readyMarker: readyMarker, watched: watching, exits: exits)
        Thread.detachNewThread { server.readOutput() }
        return server
    }

    var pid: Int32 { process.processIdentifier }

    /// Every line the process has written so far.
    var writtenLines: [String] { transcript.withLock { $0 } }

    /// Reads lines until the pipe closes; records the ready line and the port it names.
    private func readOutput() {
        var pending = Data()
        while true {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                transcript.withLock { $0.append(line) }
                if line.contains(readyMarker) {
                    if let range = line.range(of: #"(127\.0\.0\.1|\[::1\]):(\d+)"#, options: .regularExpression) {
                        let port = Int(line[range].split(separator: ":").last!)
                        announced.withLock { $0 = port }
                    }
                    lines.record("ready")
                }
                for marker in watched where line.contains(marker) {
                    lines.record("seen:" + marker)
                    lines.record("line:" + marker)
                }
            }
        }
        // The output ended: a server that never got ready, or never logged a watched line,
        // fails the test's expectations instead of hanging it.
        lines.record("closed")
        lines.record("ready")
        for marker in watched { lines.record("line:" + marker) }
    }

    /// Returns once a line containing `marker` (one of `watching`) was logged, or the output
    /// ended without one; says which.
    func line(containing marker: String) async -> Bool {
        await lines.wait(for: "line:" + marker)
        return lines.count("seen:" + marker) > 0
    }

    /// Returns once the server is ready (or its output has ended).
    func ready() async {
        await lines.wait(for: "ready")
    }

    /// The port the server announced, once it listens.
    func port() async throws -> Int {
        await ready()
        return try #require(announced.withLock { $0 })
    }

    func signal(_ signal: Int32) {
        Glibc.kill(process.processIdentifier, signal)
    }

    /// Stops a server a failed test left running; a no-op once it has exited.
    func kill() {
        if process.isRunning { signal(SIGKILL) }
    }

    /// Waits for the process to end, without a thread of its own; a cancelled test (its suite's
    /// time limit) kills it, and gets -1.
    func exitCode() async -> Int32 {
        _ = await withTaskCancellationHandler {
            await exits.wait(for: "exit")
        } onCancel: {
            self.kill()
        }
        return exits.count("exit") > 0 ? process.terminationStatus : -1
    }
}
