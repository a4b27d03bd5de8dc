import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs

/// `imagery-bench autoquality`: per image of the corpus at 800 px, the DSSIM of every quality
/// (the curve the search walks), the quality a DSSIM target needs, the detail measure the search
/// predicts from, and what the search chose and how many encodes it took. Its rows are what the
/// search's starting line and typical slope are to be fitted on (they are estimates until then).
/// With `--costs`, it also times one search step's parts at q80 (encode, decode, the SSIM
/// reference of the processed image, the DSSIM of a decoded candidate), medians per format.
struct AutoQualityBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "autoquality",
        abstract: "Measure DSSIM against quality per image, and the autoquality search's choices and encodes."
    )

    @Option(help: "Corpus directories, each with a MANIFEST.tsv.")
    var corpus: [String] = BenchCorpus.defaultDirectories

    @Option(help: "The side the images are fitted into first.")
    var side = 800

    @Option(help: "The DSSIM target.")
    var target = 0.02

    @Option(help: "The allowed error.")
    var allowedError = 0.002

    @Option(help: "Formats, by extension (jpg, webp, avif, heic, jxl).")
    var formats = ["jpg", "webp"]

    @Option(help: "A TSV of every image's curve and choice.")
    var output = "bench-out/autoquality.tsv"

    @Flag(help: "Time a search step's parts, per format: encode, decode, SSIM reference, DSSIM (medians of 5).")
    var costs = false

    func run() async throws {
        let files = try BenchCorpus(directories: corpus).groups.flatMap(\.files).filter { min($0.width, $0.height) >= 200 }
        var lines = ["file\tformat\tgradient\tquality_needed\tslope\tchosen\tencodes\tdssim\tbytes\tbytes_q80\tdssim_q80"]
        var encodes: [Int] = []
        if costs {
            try measureCosts(files)
            return
        }
        for name in formats {
            guard let format = ImageFormat(benchName: name), ImageEncoder.supportedFormats.contains(format) else { continue }
            for file in files {
                let image = try Thumbnailer(resize: .fit(width: side, height: side)).thumbnail(from: file.bytes)
                let reference = StructuralSimilarity.Reference(image)
                var encoder = try ImageEncoder(format: format)
                var curve: [(Int, Double)] = []
                for quality in stride(from: 30, through: 95, by: 1) {
                    encoder.quality = quality
                    curve.append((quality, reference.dssim(try ImageDecoder().decode(try encoder.encode(image)))))
                }
                let needed = curve.first { $0.1 <= target + allowedError }?.0 ?? 96
                // The slope of log DSSIM across the eleven qualities around the one needed.
                let around = curve.filter { abs($0.0 - needed) <= 5 && $0.1 > 0 }
                let slope = around.count >= 2 ? (log(around.last!.1) - log(around.first!.1)) / Double(around.last!.0 - around.first!.0) : .nan
                encoder.quality = 80
                let q80 = try encoder.encode(image)
                let chosen = try encoder.encode(image, choosingQualityFor: QualityTarget(.dssim(target, allowedError: allowedError), qualities: 70...80))
                encodes.append(chosen.encodes)
                let q80dssim = curve.first { $0.0 == 80 }!.1
                lines.append([file.name, name, String(format: "%.3f", QualitySearch.detail(image)), String(needed), String(format: "%.4f", slope),
                              String(chosen.quality), String(chosen.encodes), String(format: "%.5f", chosen.dssim ?? .nan), String(chosen.bytes.count),
                              String(q80.count), String(format: "%.5f", q80dssim)].joined(separator: "\t"))
                print(lines.last!)
            }
        }
        try FileManager.default.createDirectory(atPath: (output as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try lines.joined(separator: "\n").write(toFile: output, atomically: true, encoding: .utf8)
        let sorted = encodes.sorted()
        if !sorted.isEmpty { print("encodes per search: median \(sorted[sorted.count / 2]), max \(sorted.last!)") }
    }

    /// Per format, the median milliseconds of each part of one search step at q80 over `files`.
    private func measureCosts(_ files: [BenchCorpus.File]) throws {
        let images = try files.map { try Thumbnailer(resize: .fit(width: side, height: side)).thumbnail(from: $0.bytes) }
        func median(_ body: () throws -> Void) rethrows -> Double {
            Measurement.median(try (0..<5).map { _ in try Measurement.time(body) })
        }
        print("format\tencode_ms\tdecode_ms\treference_ms\tdssim_ms")
        for name in formats {
            guard let format = ImageFormat(benchName: name), ImageEncoder.supportedFormats.contains(format) else { continue }
            var parts: [[Double]] = [[], [], [], []]
            for image in images {
                let encoder = try ImageEncoder(format: format)
                let bytes = try encoder.encode(image)
                let decoded = try ImageDecoder().decode(bytes)
                let reference = StructuralSimilarity.Reference(image)
                parts[0].append(try median { _ = try encoder.encode(image) })
                parts[1].append(try median { _ = try ImageDecoder().decode(bytes) })
                parts[2].append(median { _ = StructuralSimilarity.Reference(image) })
                parts[3].append(median { _ = reference.dssim(decoded) })
            }
            print(([name] + parts.map { String(format: "%.1f", Measurement.median($0)) }).joined(separator: "\t"))
        }
    }
}
