import Foundation
import Imagery

/// Timing and process helpers for `imagery-bench`.
enum Measurement {
    /// Runs `body` and returns its wall time in milliseconds.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return (clock.now - start).seconds * 1000
    }

    /// Runs `body` and returns its wall time in milliseconds.
    static func timeAsync(_ body: () async throws -> Void) async rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try await body()
        return (clock.now - start).seconds * 1000
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// The absolute path of `tool` on PATH, or `nil`.
    static func which(_ tool: String) -> String? {
        if tool.hasPrefix("/") { return FileManager.default.isExecutableFile(atPath: tool) ? tool : nil }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    struct ProcessResult {
        var status: Int32
        var output: String
        var milliseconds: Double
    }

    /// Runs a command to completion, capturing standard output (standard error is discarded).
    static func run(_ executable: String, _ arguments: [String]) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let clock = ContinuousClock()
        let start = clock.now
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return ProcessResult(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self),
                             milliseconds: (clock.now - start).seconds * 1000)
    }

    /// Peak resident memory of a command in MB, measured by a Python wrapper through
    /// `getrusage(RUSAGE_CHILDREN)`, with a wall-clock limit. Returns (MB, wall ms, timed out).
    static func peakMemory(_ command: [String], timeoutSeconds: Int = 60) throws -> (megabytes: Double, milliseconds: Double, timedOut: Bool) {
        guard let python = which("python3") else { return (.nan, .nan, false) }
        let script = """
        import resource, subprocess, sys, threading, time
        start = time.perf_counter(); timed_out = []
        child = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # A blocking wait, ended by a timer: wait(timeout=) polls, in sleeps of up to 50 ms.
        timer = threading.Timer(int(sys.argv[1]), lambda: (timed_out.append(1), child.kill()))
        timer.start(); child.wait(); elapsed = time.perf_counter() - start; timer.cancel()
        print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, elapsed * 1000, 1 if timed_out else 0)
        """
        let result = try run(python, ["-c", script, String(timeoutSeconds)] + command)
        let fields = result.output.split(whereSeparator: \.isWhitespace)
        guard fields.count == 3, let kilobytes = Double(fields[0]), let ms = Double(fields[1]) else { return (.nan, .nan, false) }
        return (kilobytes / 1024, ms, fields[2] == "1")
    }
}
