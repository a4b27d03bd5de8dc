import ArgumentParser
import Foundation
import Imagery

/// The anchors: vipsthumbnail, Pillow (scripts/bench_pillow.py) and djpeg, plus Imagery's own CLI as a process.
struct ExternalTools {
    let vips: String?
    let python: String?
    let pillowScript: String?
    let djpeg: String?
    let imageryExecutable: String
    let absoluteOutput: String
    let size: Int

    init(available: Bool, output: String, size: Int) throws {
        self.size = size
        absoluteOutput = URL(fileURLWithPath: output).standardizedFileURL.path
        // `imagery` is built beside this executable by `swift build -c release`.
        imageryExecutable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("imagery").standardizedFileURL.path
        guard FileManager.default.isExecutableFile(atPath: imageryExecutable) else {
            throw ValidationError("no imagery executable beside imagery-bench: run `swift build -c release` first")
        }
        vips = available ? Measurement.which("vipsthumbnail") : nil
        djpeg = available ? Measurement.which("djpeg") : nil
        python = available ? Measurement.which("python3") : nil
        let hasPillow = python.map { (try? Measurement.run($0, ["-c", "import PIL"]).status) == 0 } ?? false
        pillowScript = hasPillow ? Self.script("bench_pillow.py") : nil
        chartScript = hasPillow ? Self.script("bench_chart.py") : nil
    }

    let chartScript: String?

    /// A script in `Benchmarks/scripts/`: the bench runs from the package root.
    private static func script(_ name: String) -> String? {
        let path = "Benchmarks/scripts/\(name)"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Renders results.json as a bar chart PNG with Pillow. Returns whether it did.
    func drawChart(results: String, chart: String) -> Bool {
        guard let python, let chartScript else { return false }
        return (try? Measurement.run(python, [chartScript, results, chart]).status) == 0
    }

    func versions() -> [String: String] {
        var versions: [String: String] = [:]
        if let vips, let out = try? Measurement.run(vips, ["--vips-version"]) { versions["vipsthumbnail"] = out.output.trimmingCharacters(in: .whitespacesAndNewlines) }
        if let python, pillowScript != nil, let out = try? Measurement.run(python, ["-c", "import PIL; print(PIL.__version__)"]) {
            versions["Pillow"] = out.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if djpeg != nil { versions["djpeg"] = "libjpeg-turbo (system)" }
        return versions
    }

    private func directory(_ name: String) throws -> String {
        let path = "\(absoluteOutput)/\(name)"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// ms/image for `imagery thumbnail` over the whole group in one process.
    func imageryBatch(_ paths: [String], jobs: Int, repetitions: Int) throws -> Double? {
        let out = try directory("imagery-batch")
        let times = try (0..<repetitions).map { _ in
            try Measurement.run(imageryExecutable, ["thumbnail"] + paths + ["--fit", "\(size)x\(size)", "--quality", "85", "--jobs", "\(jobs)", "-o", out]).milliseconds
        }
        return Measurement.median(times) / Double(paths.count)
    }

    /// ms/image for `vipsthumbnail` over the whole group in one process.
    func vipsBatch(_ paths: [String], repetitions: Int) throws -> Double? {
        guard let vips else { return nil }
        let out = try directory("vips-batch")
        let times = try (0..<repetitions).map { _ in
            try Measurement.run(vips, ["--size", "\(size)", "-o", "\(out)/%s.jpg[Q=85]"] + paths).milliseconds
        }
        return Measurement.median(times) / Double(paths.count)
    }

    /// ms/image for Pillow draft() + thumbnail() in one process (its own per-file medians).
    func pillow(_ paths: [String], repetitions: Int) throws -> Double? {
        guard let python, let pillowScript else { return nil }
        let result = try Measurement.run(python, [pillowScript, "--size", "\(size)", "--repeat", "\(repetitions)"] + paths)
        guard let json = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Double] else { return nil }
        return json.values.reduce(0, +) / Double(json.count)
    }

    /// ms/image for `djpeg -scale N/8` run once per file (includes process start-up).
    func djpegProcesses(_ paths: [String], eighths: [String: Int], repetitions: Int) throws -> Double? {
        guard let djpeg else { return nil }
        var total = 0.0
        for path in paths {
            let scale = eighths[String(path.split(separator: "/").last!)] ?? 1
            let times = try (0..<repetitions).map { _ in
                try Measurement.run(djpeg, ["-scale", "\(scale)/8", "-outfile", "/dev/null", path]).milliseconds
            }
            total += Measurement.median(times)
        }
        return total / Double(paths.count)
    }

    func vipsPNGs(_ paths: [String]) throws -> [String: [UInt8]] {
        guard let vips else { return [:] }
        let out = try directory("quality-vips")
        _ = try Measurement.run(vips, ["--size", "\(size)", "-o", "\(out)/%s.png"] + paths)
        return collect(paths, from: out)
    }

    func pillowPNGs(_ paths: [String]) throws -> [String: [UInt8]] {
        guard let python, let pillowScript else { return [:] }
        let out = try directory("quality-pillow")
        _ = try Measurement.run(python, [pillowScript, "--size", "\(size)", "--repeat", "1", "--format", "PNG", "--out", out] + paths)
        return collect(paths, from: out)
    }

    private func collect(_ paths: [String], from directory: String) -> [String: [UInt8]] {
        var outputs: [String: [UInt8]] = [:]
        for path in paths {
            let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            if let data = FileManager.default.contents(atPath: "\(directory)/\(stem).png") { outputs[path] = [UInt8](data) }
        }
        return outputs
    }

    /// Peak RSS of thumbnailing one file, for each tool, and of each tool's idle process.
    func memory(of path: String) throws -> BenchReport.Memory {
        var memory = BenchReport.Memory(file: URL(fileURLWithPath: path).lastPathComponent)
        let out = try directory("memory")
        memory.imageryIdleMB = try Measurement.peakMemory([imageryExecutable, "thumbnail", "\(out)/does-not-exist.jpg", "-o", out]).megabytes
        memory.imageryMB = try Measurement.peakMemory([imageryExecutable, "thumbnail", path, "--jobs", "1", "-o", out]).megabytes
        if let vips {
            memory.vipsMB = try Measurement.peakMemory([vips, "--size", "\(size)", "-o", "\(out)/%s.jpg", path]).megabytes
        }
        if let python, let pillowScript {
            memory.pythonIdleMB = try Measurement.peakMemory([python, "-c", "import PIL.Image"]).megabytes
            memory.pillowMB = try Measurement.peakMemory([python, pillowScript, "--repeat", "1", path]).megabytes
        }
        return memory
    }
}
