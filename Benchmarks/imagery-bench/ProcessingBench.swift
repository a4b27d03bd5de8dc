import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs

/// `imagery-bench processing`: the processors against libvips and Pillow, one core, one run.
struct ProcessingBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "processing",
        abstract: "Benchmark blur, sharpen and smart crop against libvips and Pillow (one core, one run).",
        discussion: """
        Every operation runs on pixels already in memory, on one thread: Imagery here, libvips \
        through pyvips with VIPS_CONCURRENCY=1 and Pillow in Benchmarks/scripts/bench_processing.py. \
        Then the cost of rounded corners plus sharpen on a 256 px thumbnail, against the \
        thumbnail alone (decode + resize of the same photo).
        """
    )

    @Option(help: "A 2560x1600 (or any) photo.")
    var photo = "Tests/ImageryCodecsTests/Resources/jpeg_cmyk_yellowflower_2560x1600.jpg"

    @Option(help: "Repetitions per measurement (medians are reported).")
    var repetitions = 7

    @Flag(help: "Imagery only: skip libvips and Pillow (for quick iterations).")
    var noAnchors = false

    @Option(help: "Directory for the decoded PNG handed to the anchors, and results.")
    var output = "bench-out"

    func run() async throws {
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: photo)))
        let image = try ImageDecoder().decode(bytes).flattened()
        let png = "\(output)/processing-input.png"
        try Data(ImageEncoder(format: .png).encode(image)).write(to: URL(fileURLWithPath: png))
        log("processing: \(image.width)x\(image.height), \(repetitions) repetitions, one thread")

        let sigmas = [2.0, 10, 50]
        var ours: [(String, Double)] = []
        for sigma in sigmas {
            let blur = ImageProcessors.GaussianBlur(sigma: sigma)
            ours.append(("blur \(Int(sigma))", try median { _ = try blur.process(image) }))
        }
        let sharpen = ImageProcessors.Sharpen(sigma: 1, amount: 1)
        ours.append(("sharpen", try median { _ = try sharpen.process(image) }))
        let smart = ImageProcessors.Crop(width: 800, height: 800, gravity: .smart)
        ours.append(("smartcrop", try median { _ = try smart.process(image) }))

        var anchors: [String: [String: Double]] = [:]
        if !noAnchors, let python = Measurement.which("python3"), FileManager.default.fileExists(atPath: "Benchmarks/scripts/bench_processing.py") {
            let result = try Measurement.run(python, ["Benchmarks/scripts/bench_processing.py", png, "--repeat", "\(repetitions)"])
            anchors = (try? JSONDecoder().decode([String: [String: Double]].self, from: Data(result.output.utf8))) ?? [:]
        }

        var lines = ["| Operation, \(image.width)x\(image.height) | Imagery ms | libvips ms | Pillow ms | Imagery ÷ faster anchor |", "|---|---:|---:|---:|---:|"]
        for (name, ms) in ours {
            let vips = anchors["vips"]?[name], pillow = anchors["pillow"]?[name]
            let faster = [vips, pillow].compactMap { $0 }.min()
            lines.append("| \(name) | \(format(ms)) | \(format(vips)) | \(format(pillow)) | \(faster.map { String(format: "%.2f×", ms / $0) } ?? "–") |")
        }
        // vips' default kernel stops at 20% of its peak; at the 3-sigma reach of Imagery's
        // kernel (and of the test references) it does the same work as Imagery.
        for (name, ms) in ours where name.hasPrefix("blur ") {
            guard let accurate = anchors["vips"]?["\(name) 3-sigma"] else { continue }
            lines.append("| \(name), vips with a 3-sigma kernel like Imagery's | | \(format(accurate)) | | \(String(format: "%.2f×", ms / accurate)) (vips only) |")
        }
        if let attention = anchors["vips"]?["smartcrop attention"] {
            lines.append("| smartcrop (vips `attention`) | | \(format(attention)) | | |")
        }

        // Rounded corners plus sharpen on a 256 px thumbnail, against the thumbnail alone.
        let plain = Thumbnailer(resize: .fit(width: 256, height: 256))
        let styled = Thumbnailer(resize: .fit(width: 256, height: 256), processors: [.sharpen(), .roundedCorners(16)])
        let smallRuns = max(repetitions, 21)
        var plainTimes: [Double] = [], styledTimes: [Double] = []
        for _ in 0..<smallRuns {   // interleaved, so drift hits both alike
            plainTimes.append(Measurement.time { _ = try? plain.thumbnail(from: bytes) })
            styledTimes.append(Measurement.time { _ = try? styled.thumbnail(from: bytes) })
        }
        let plainMs = Measurement.median(plainTimes), styledMs = Measurement.median(styledTimes)
        let thumbnail = try plain.thumbnail(from: bytes)
        let extra = try median { _ = try ImageProcessors.RoundedCorners(radius: 16).process(ImageProcessors.Sharpen().process(thumbnail)) }
        lines.append("")
        lines.append("| 256 px thumbnail of the photo | ms |")
        lines.append("|---|---:|")
        lines.append("| thumbnail alone (decode + resize) | \(format(plainMs)) |")
        lines.append("| thumbnail + sharpen + rounded corners | \(format(styledMs)) |")
        lines.append("| sharpen + rounded corners alone, on the \(thumbnail.width)x\(thumbnail.height) thumbnail | \(String(format: "%.3f", extra)) (\(String(format: "%.1f", 100 * extra / plainMs))% of the thumbnail) |")
        let markdown = lines.joined(separator: "\n")
        print(markdown)
        try markdown.write(toFile: "\(output)/processing.md", atomically: true, encoding: .utf8)
    }

    private func median(_ body: () throws -> Void) rethrows -> Double {
        try body()   // warm-up
        return Measurement.median(try (0..<repetitions).map { _ in try Measurement.time(body) })
    }

    private func format(_ value: Double?) -> String {
        value.map { String(format: "%.1f", $0) } ?? "–"
    }
}
