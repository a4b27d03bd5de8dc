import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs

/// `imagery-bench`: the benchmarks, apart from the tests (which never assert timings) and
/// from every product: `swift run -c release imagery-bench [thumbnails|pipeline|disk-cache|processing|placeholders|bombs]`
/// from the package root.
@main
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imagery-bench",
        abstract: "Benchmarks: thumbnails and processors against libvips and Pillow, and the pipeline's hot paths.",
        subcommands: [ThumbnailBenchCommand.self, PipelineBenchCommand.self, DiskCacheBenchCommand.self, ProcessingBenchCommand.self, PlaceholderBenchCommand.self, ProgressiveBenchCommand.self, AutoQualityBenchCommand.self, FormatsBenchCommand.self, BombBenchCommand.self],
        defaultSubcommand: ThumbnailBenchCommand.self
    )
}

/// `imagery-bench thumbnails`: thumbnails against the codec floor, vipsthumbnail and Pillow, in one run.
struct ThumbnailBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Benchmark thumbnails against the codec floor, vipsthumbnail and Pillow (one run, one machine).",
        discussion: """
        In-process figures time decode + resize + JPEG encode of bytes already in memory, on one thread, \
        interleaved with the floor (libjpeg-turbo at the same DCT scale, or libpng to RGBA), and report \
        per-file medians. Batch figures time whole processes over each group, as `vipsthumbnail` runs.
        """
    )

    @Option(help: "Corpus directories, each with a MANIFEST.tsv (default: Benchmarks/Corpus and the test images, which every clone has).")
    var corpus: [String] = BenchCorpus.defaultDirectories

    @Option(help: "Thumbnail box size in pixels.")
    var size = 256

    @Option(help: "Repetitions per measurement (medians are reported).")
    var repetitions = 7

    @Option(help: "Directory for outputs and results.json.")
    var output = "bench-out"

    @Flag(help: "Skip vipsthumbnail, Pillow and djpeg.")
    var skipExternal = false

    func run() async throws {
        let corpus = try BenchCorpus(directories: corpus)
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let box = Resize.fit(width: size, height: size)
        var report = BenchReport(size: size, repetitions: repetitions)
        let tools = try ExternalTools(available: !skipExternal, output: output, size: size)
        report.toolVersions = tools.versions()

        for group in corpus.groups where !group.files.isEmpty {
            log("\(group.title): \(group.files.count) files")
            var row = BenchReport.GroupRow(title: group.title, target: group.target, files: group.files.map(\.name))
            let inProcess = try InProcessBench(box: box, repetitions: repetitions).measure(group.files)
            row.floorMs = inProcess.floor
            row.imageryMs = inProcess.imagery
            row.eighths = inProcess.eighths
            row.perFileMs = inProcess.perFile
            let paths = group.files.map(\.path)
            row.imageryBatch1Ms = try tools.imageryBatch(paths, jobs: 1, repetitions: repetitions)
            row.imageryBatchAllMs = try tools.imageryBatch(paths, jobs: ProcessInfo.processInfo.activeProcessorCount, repetitions: repetitions)
            row.vipsMs = try tools.vipsBatch(paths, repetitions: repetitions)
            row.pillowMs = try tools.pillow(paths, repetitions: repetitions)
            if group.files.allSatisfy({ $0.format == "JPEG" }) {
                row.djpegMs = try tools.djpegProcesses(paths, eighths: inProcess.eighths, repetitions: repetitions)
            }
            log("  quality")
            row.psnr = try QualityBench(box: box, tools: tools).measure(group.files)
            report.groups.append(row)
        }

        log("memory and hostile input")
        if let largest = corpus.groups.flatMap(\.files).max(by: { $0.width * $0.height < $1.width * $1.height }) {
            report.memory = try tools.memory(of: largest.path)
        }
        if let progressive = corpus.groups.flatMap(\.files).first(where: { $0.kind.hasPrefix("progressive") }) {
            report.hostile = try HostileBench(tools: tools, output: output).measure(progressive.bytes)
        }
        let markdown = report.markdown()
        print(markdown)
        try markdown.write(toFile: "\(output)/results.md", atomically: true, encoding: .utf8)
        try JSONEncoder.pretty.encode(report).write(to: URL(fileURLWithPath: "\(output)/results.json"))
        if tools.drawChart(results: "\(output)/results.json", chart: "\(output)/results.png") {
            log("wrote \(output)/results.md, results.json and the chart results.png")
        } else {
            log("wrote \(output)/results.md and results.json (no chart: needs python3 with Pillow)")
        }
    }
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("bench: \(message)\n".utf8))
}

extension JSONEncoder {
    static var pretty: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }
}
