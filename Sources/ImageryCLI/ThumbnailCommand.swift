import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs

struct ThumbnailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Make thumbnails of many images in one process, on all cores.",
        discussion: """
        Each output is OUTDIR/<input name without extension>.<format extension>. A file that \
        fails prints one line to standard error and the batch goes on; the exit code is 1 if any failed.
        """
    )

    @Argument(help: "Input image files or directories.")
    var inputs: [String]

    @Option(help: ArgumentHelp("Fit inside a box, keeping the aspect ratio.", valueName: "WxH"))
    var fit: BoxSize?

    @Option(help: ArgumentHelp("Cover a box and crop the centre.", valueName: "WxH"))
    var fill: BoxSize?

    @Option(help: ArgumentHelp("Scale to a width, keeping the aspect ratio.", valueName: "W"))
    var width: Int?

    @Option(help: "Output format: jpeg, png or webp.")
    var format: OutputFormat = .jpeg

    @Option(help: "JPEG/WebP quality, 1–100.")
    var quality: Int = 85

    @Option(name: .shortAndLong, help: "Output directory (created if missing).")
    var output: String

    @Option(help: "Images processed at once (default: the number of active cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Accept truncated or damaged images (missing data is filled in) instead of failing them.")
    var lenient = false

    func validate() throws {
        let chosen = [fit != nil, fill != nil, width != nil].filter { $0 }.count
        guard chosen <= 1 else { throw ValidationError("Use only one of --fit, --fill and --width.") }
        if let width, width <= 0 { throw ValidationError("--width must be positive.") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100.") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
    }

    var resize: Resize {
        if let fill { return .fill(width: fill.width, height: fill.height) }
        if let width { return .width(width) }
        let box = fit ?? BoxSize(width: 256, height: 256)
        return .fit(width: box.width, height: box.height)
    }

    func run() async throws {
        let encoder: ImageEncoder
        do {
            encoder = try ImageEncoder(format: format.imageFormat, quality: quality)
        } catch {
            throw ValidationError("\(error)")
        }
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        var options = DecodingOptions()
        options.policy = lenient ? .lenient : .strict
        let job = ThumbnailJob(
            thumbnailer: Thumbnailer(resize: resize, decodingOptions: options),
            encoder: encoder, outputDirectory: URL(fileURLWithPath: output)
        )
        let files = InputFiles.expand(inputs)
        for (format, count) in files.skipped.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let hint = format == .webp ? " (build with --traits WebP)" : ""
            FileHandle.standardError.write(Data("note: skipped \(count) \(format) file(s) in the given directories: not supported by this build\(hint)\n".utf8))
        }
        let report = await job.run(files: files.paths, jobs: jobs, progress: Progress(total: files.paths.count))
        for failure in files.failures + report.failures {
            FileHandle.standardError.write(Data("\(failure.path): \(failure.reason)\n".utf8))
        }
        let failed = files.failures.count + report.failures.count
        let total = files.paths.count + files.failures.count
        let rate = report.seconds > 0 ? Double(report.succeeded) / report.seconds : 0
        print("thumbnail: \(total) images, \(failed) failed, \(String(format: "%.2f", report.seconds)) s, \(String(format: "%.1f", rate)) images/s")
        if failed > 0 { throw ExitCode(1) }
    }
}

struct BoxSize: ExpressibleByArgument, Sendable {
    var width: Int
    var height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        self.init(width: w, height: h)
    }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case jpeg, png, webp

    var imageFormat: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        }
    }
}
