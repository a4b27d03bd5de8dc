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

        Processors run on the resized image in this order: --crop, --blur, --sharpen, then \
        --round or --circle. With --round or --circle the default format is PNG, which keeps \
        the transparent corners.
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

    @Option(help: ArgumentHelp(
        "Crop the resized image to a box, placed by a gravity: center (default), north, south, east, west, northeast, northwest, southeast, southwest or smart (the most detailed window).",
        valueName: "WxH[:gravity]"
    ))
    var crop: CropSpec?

    @Option(help: ArgumentHelp("Gaussian blur of this standard deviation, in pixels.", valueName: "SIGMA"))
    var blur: Double?

    @Flag(help: "Sharpen with an unsharp mask (sigma 1, amount 1).")
    var sharpen = false

    @Option(help: ArgumentHelp("Round the corners to this radius, in pixels.", valueName: "R"))
    var round: Double?

    @Flag(help: "Crop the centre square and mask it to a circle.")
    var circle = false

    @Option(help: "Output format: jpeg, png, gif, webp, avif, heic or jxl (default: jpeg, or png with --round or --circle; webp, avif, heic and jxl need their traits). gif and webp keep an animated GIF's or WebP's frames.")
    var format: OutputFormat?

    @Option(help: "JPEG, WebP, AVIF, HEIC and JPEG XL quality, 1–100.")
    var quality: Int = 85

    @Option(help: "AVIF encoder speed, 0 (smallest files) to 10 (fastest).")
    var avifSpeed: Int = 9

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
        guard (0...10).contains(avifSpeed) else { throw ValidationError("--avif-speed must be between 0 and 10.") }
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1.") }
        if let blur, !(blur.isFinite && blur >= 0) { throw ValidationError("--blur must be 0 or more.") }
        if let round, !(round.isFinite && round >= 0) { throw ValidationError("--round must be 0 or more.") }
        if round != nil, circle { throw ValidationError("Use only one of --round and --circle.") }
    }

    /// The processors the flags ask for, in the documented order.
    var processors: [any ImageProcessing] {
        var processors: [any ImageProcessing] = []
        if let crop { processors.append(.crop(width: crop.width, height: crop.height, gravity: crop.gravity)) }
        if let blur, blur > 0 { processors.append(.blur(sigma: blur)) }
        if sharpen { processors.append(.sharpen()) }
        if let round, round > 0 { processors.append(.roundedCorners(round)) }
        if circle { processors.append(.circle) }
        return processors
    }

    /// The output format: as asked, or PNG when corners are cut away (JPEG has no alpha).
    var outputFormat: OutputFormat {
        format ?? (circle || (round ?? 0) > 0 ? .png : .jpeg)
    }

    var resize: Resize {
        if let fill { return .fill(width: fill.width, height: fill.height) }
        if let width { return .width(width) }
        let box = fit ?? BoxSize(width: 256, height: 256)
        return .fit(width: box.width, height: box.height)
    }

    func run() async throws {
        var encoder: ImageEncoder
        do {
            encoder = try ImageEncoder(format: outputFormat.imageFormat, quality: quality)
        } catch {
            throw ValidationError("\(error)")
        }
        encoder.avifSpeed = avifSpeed
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        var options = DecodingOptions()
        options.policy = lenient ? .lenient : .strict
        let job = ThumbnailJob(
            thumbnailer: Thumbnailer(resize: resize, decodingOptions: options, processors: processors),
            encoder: encoder, outputDirectory: URL(fileURLWithPath: output)
        )
        let files = InputFiles.expand(inputs)
        for (format, count) in files.skipped.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let hint = format == .bmp ? "" : " (build with --traits \(format.packageTrait))"
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

/// `WxH` or `WxH:gravity`, for `--crop`.
struct CropSpec: ExpressibleByArgument, Sendable {
    var width: Int
    var height: Int
    var gravity: Gravity

    init?(argument: String) {
        let parts = argument.split(separator: ":", maxSplits: 1).map(String.init)
        guard let box = parts.first.flatMap(BoxSize.init(argument:)) else { return nil }
        guard let gravity = parts.count == 2 ? Gravity(name: parts[1]) : .center else { return nil }
        self.width = box.width
        self.height = box.height
        self.gravity = gravity
    }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case jpeg, png, gif, webp, avif, heic, jxl

    var imageFormat: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .gif: .gif
        case .webp: .webp
        case .avif: .avif
        case .heic: .heic
        case .jxl: .jxl
        }
    }
}
