import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport

/// `imagery-bench bombs`: the worst case of each bomb issue 33 names (the same files the
/// server's memory test serves, from `ImageryTestSupport`), thumbnailed to 256 px: how long
/// Imagery takes to refuse or draw it in process, and the `imagery` CLI's and vipsthumbnail's
/// time and peak RSS as processes.
struct BombBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bombs",
        abstract: "Format bombs (TIFF, SVG, BMP) to 256 px: time and peak memory, beside vipsthumbnail."
    )

    @Option(help: "Repetitions of the in-process thumbnail (medians are reported).")
    var repetitions = 9

    @Option(help: "Seconds before a process is killed.")
    var timeout = 60

    @Option(help: "Directory for the bombs and outputs.")
    var output = "bench-out/bombs"

    struct Row {
        var name: String
        var inProcessMs = Double.nan
        var outcome = ""
        var process: (megabytes: Double, milliseconds: Double, timedOut: Bool) = (.nan, .nan, false)
        var vips: (megabytes: Double, milliseconds: Double, timedOut: Bool)?
    }

    func run() async throws {
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        let tools = try ExternalTools(available: true, output: output, size: 256)
        let bombs: [(String, [UInt8], ImageFormat)] = [
            ("tiff_claims_60000x60000.tif", TIFFBuilder.header(width: 60_000, height: 60_000), .tiff),
            ("tiff_10000_pages.tif", TIFFBuilder.pages(10_000), .tiff),
            ("svg_canvas_200000x200000.svg", Fixtures.svgCanvas(width: 200_000, height: 200_000), .svg),
            ("svg_nested_use_10e10.svg", Fixtures.svgNestedUse(), .svg),
            ("svg_nested_entities_10e9.svg", Fixtures.svgNestedEntities(), .svg),
            ("bmp_lies_claims_30000x30000.bmp", Fixtures.bytes("bmp_lies_claims_30000x30000.bmp"), .bmp),
        ]
        var rows: [Row] = []
        for (name, bytes, format) in bombs {
            guard ImageDecoder.supportedFormats.contains(format) else {
                log("\(name): this build does not read \(format) (--traits AllFormats); left out")
                continue
            }
            log(name)
            let path = "\(output)/\(name)"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            var row = Row(name: name)
            var times: [Double] = []
            for _ in 0..<repetitions {
                times.append(Measurement.time {
                    do {
                        let image = try Thumbnailer(resize: .fit(width: 256, height: 256)).thumbnail(from: bytes)
                        row.outcome = "drawn, \(image.width)×\(image.height)"
                    } catch {
                        row.outcome = "refused: \(error)"
                    }
                })
            }
            row.inProcessMs = Measurement.median(times)
            row.process = try Measurement.peakMemory([tools.imageryExecutable, "thumbnail", path, "-o", "\(output)/imagery"], timeoutSeconds: timeout)
            if let vips = tools.vips {
                row.vips = try Measurement.peakMemory([vips, "--size", "256", "-o", "\(tools.absoluteOutput)/%s.png", path], timeoutSeconds: timeout)
            }
            rows.append(row)
        }
        func figure(_ value: Double) -> String { value.isNaN ? "–" : String(format: value < 10 ? "%.2f" : "%.0f", value) }
        func process(_ measured: (megabytes: Double, milliseconds: Double, timedOut: Bool)?) -> String {
            guard let measured else { return "– | –" }
            return measured.timedOut ? "killed after \(timeout) s | \(figure(measured.megabytes))" : "\(figure(measured.milliseconds)) | \(figure(measured.megabytes))"
        }
        var lines = [
            "| Bomb | Imagery in process, ms | Outcome | `imagery thumbnail`, ms | its peak RSS, MB | vipsthumbnail, ms | its peak RSS, MB |",
            "|---|---:|---|---:|---:|---:|---:|",
        ]
        for row in rows {
            lines.append("| \(row.name) | \(figure(row.inProcessMs)) | \(row.outcome.prefix(90)) | \(process(row.process)) | \(process(row.vips)) |")
        }
        print(lines.joined(separator: "\n"))
    }
}
