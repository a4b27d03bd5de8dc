import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs

/// `imagery-bench formats`: WebP, AVIF, HEIC and JPEG XL written by Imagery at equal DSSIM, on the
/// corpus's photos fitted into a box: for each format, the bytes and the encode time each needs
/// to reach each DSSIM target, read off its curve of qualities (bytes interpolated in log DSSIM
/// between the two qualities around the target, encode time the median of three at the nearer).
/// DSSIM is (1 − SSIM) / 2 over BT.601 luma, against the processed image, as autoquality
/// measures it (equal to scikit-image's on the same pixels).
struct FormatsBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "formats",
        abstract: "Bytes and encode time of WebP, AVIF, HEIC and JPEG XL at equal DSSIM."
    )

    @Option(help: "Corpus directories, each with a MANIFEST.tsv.")
    var corpus: [String] = BenchCorpus.defaultDirectories

    @Option(help: "The side the photos are fitted into first.")
    var side = 800

    @Option(help: "DSSIM targets.")
    var targets = [0.01, 0.02]

    @Option(help: "Formats, by extension (webp, avif, heic, jxl, jpg).")
    var formats = ["jpg", "webp", "avif", "heic", "jxl"]

    @Option(help: "libjxl's effort, 1 to 9.")
    var jxlEffort = 4

    @Option(help: "A TSV of every image's curve (and beside it, NAME-summary.tsv, the totals).")
    var output = "bench-out/formats.tsv"

    func run() async throws {
        let photos = try BenchCorpus(directories: corpus).groups.flatMap(\.files).filter { $0.format == "JPEG" && min($0.width, $0.height) >= 200 }
        let encoders = try formats.compactMap { name -> (String, ImageEncoder)? in
            guard let format = ImageFormat(benchName: name), ImageEncoder.supportedFormats.contains(format) else {
                print("\(name): not written by this build (--traits AllFormats); left out")
                return nil
            }
            var encoder = try ImageEncoder(format: format)
            encoder.jxlEffort = jxlEffort
            return (name, encoder)
        }
        var lines = ["file\tformat\tquality\tdssim\tbytes"]
        // totals[format][target] = (bytes, encode times)
        var totals: [String: [Double: (bytes: Double, times: [Double], missed: Int)]] = [:]
        for (index, file) in photos.enumerated() {
            print("\(index + 1)/\(photos.count) \(file.name)")
            let image = try Thumbnailer(resize: .fit(width: side, height: side)).thumbnail(from: file.bytes)
            let reference = StructuralSimilarity.Reference(image)
            for (name, base) in encoders {
                var encoder = base
                var curve: [(quality: Int, dssim: Double, bytes: Int)] = []
                for quality in stride(from: 10, through: 95, by: 5) {
                    encoder.quality = quality
                    let bytes = try encoder.encode(image)
                    let dssim = reference.dssim(try ImageDecoder().decode(bytes))
                    curve.append((quality, dssim, bytes.count))
                    lines.append("\(file.name)\t\(name)\t\(quality)\t\(String(format: "%.5f", dssim))\t\(bytes.count)")
                }
                for target in targets {
                    let (bytes, quality, missed) = Self.bytes(at: target, on: curve)
                    encoder.quality = quality
                    let time = Measurement.median(try (0..<3).map { _ in try Measurement.time { _ = try encoder.encode(image) } })
                    var total = totals[name, default: [:]][target, default: (0, [], 0)]
                    total.bytes += bytes
                    total.times.append(time)
                    total.missed += missed ? 1 : 0
                    totals[name, default: [:]][target] = total
                }
            }
        }
        try FileManager.default.createDirectory(atPath: (output as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try lines.joined(separator: "\n").write(toFile: output, atomically: true, encoding: .utf8)
        var summary = ["target\tformat\tbytes\tmedian_ms\tshort"]
        for target in targets {
            let anchor = totals["avif"]?[target]
            print("\nDSSIM \(target), \(photos.count) photos at \(side) px")
            print("| Format | total bytes | vs AVIF | median encode ms | vs AVIF | short of the target |")
            print("|---|---:|---:|---:|---:|---:|")
            for (name, _) in encoders {
                guard let total = totals[name]?[target] else { continue }
                let time = Measurement.median(total.times)
                let bytesRatio = anchor.map { String(format: "%.2f×", total.bytes / $0.bytes) } ?? "–"
                let timeRatio = anchor.map { String(format: "%.2f×", time / Measurement.median($0.times)) } ?? "–"
                print("| \(name) | \(Int(total.bytes.rounded())) | \(bytesRatio) | \(String(format: "%.1f", time)) | \(timeRatio) | \(total.missed) |")
                summary.append("\(target)\t\(name)\t\(Int(total.bytes.rounded()))\t\(String(format: "%.1f", time))\t\(total.missed)")
            }
        }
        // Beside the curves: what Benchmarks/scripts/chart_formats.py draws.
        let summaryPath = (output as NSString).deletingPathExtension + "-summary.tsv"
        try summary.joined(separator: "\n").write(toFile: summaryPath, atomically: true, encoding: .utf8)
    }

    /// The bytes `curve` (ascending quality) needs for `target`, interpolated in log DSSIM between
    /// the two qualities around it; the quality nearer the target; and whether even the highest
    /// quality fell short (then its bytes).
    static func bytes(at target: Double, on curve: [(quality: Int, dssim: Double, bytes: Int)]) -> (Double, Int, Bool) {
        guard let reached = curve.firstIndex(where: { $0.dssim <= target }) else {
            return (Double(curve.last!.bytes), curve.last!.quality, true)
        }
        guard reached > 0 else { return (Double(curve[0].bytes), curve[0].quality, false) }
        let above = curve[reached - 1], below = curve[reached]
        let span = log(max(above.dssim, 1e-9)) - log(max(below.dssim, 1e-9))
        let share = span > 0 ? (log(max(above.dssim, 1e-9)) - log(target)) / span : 1
        let bytes = Double(above.bytes) + share * Double(below.bytes - above.bytes)
        return (bytes, share < 0.5 ? above.quality : below.quality, false)
    }
}
