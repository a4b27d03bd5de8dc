import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport

/// `imagery-bench progressive`: how soon a progressive JPEG served slowly on loopback shows a
/// preview, against when its final image arrives (issue 25), with previews on and off.
struct ProgressiveBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "progressive",
        abstract: "Benchmark progressive previews: first preview against final image, a progressive JPEG served slowly on 127.0.0.1.",
        discussion: "Each figure is the median over --repetitions loads, each through a fresh pipeline (URLSession's DataLoader) from a loopback server sending --rate bytes a second."
    )

    @Option(help: "The progressive JPEG (default: the clone's 10.7 MP bridge).")
    var photo = "Benchmarks/Corpus/jpeg_large_prog_bridge_4352x2448.jpg"

    @Option(help: "Bytes a second the server sends.")
    var rate = 250_000

    @Option(help: "Loads per configuration.")
    var repetitions = 5

    @Option(help: "The request's fit, in pixels (a detail screen).")
    var size = 1024

    @Option(help: "Write the previews of the last load and its final image, side by side, to this PNG.")
    var sheet: String?

    func run() async throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: photo)))
        guard ImageHeader.isProgressiveJPEG(bytes) == true else { throw ValidationError("\(photo) is not a progressive JPEG") }
        let server = try TestHTTPServer { _ in .throttled(bytes, bytesPerSecond: rate) }
        defer { server.stop() }
        let name = URL(fileURLWithPath: photo).lastPathComponent
        let transfer = Double(bytes.count) / Double(rate)
        log("\(name): \(bytes.count) bytes at \(rate) B/s, about \(String(format: "%.1f", transfer)) s a load")

        var withPreviews: [Load] = []
        var without: [Load] = []
        for index in 0..<repetitions {
            without.append(try await load(server.url("/\(index)/off.jpg"), previews: false))
            withPreviews.append(try await load(server.url("/\(index)/on.jpg"), previews: true))
            log("load \(index + 1)/\(repetitions): first preview \(ms(withPreviews.last!.firstPreview)) ms, final \(ms(withPreviews.last!.final)) ms (without previews \(ms(without.last!.final)) ms), \(withPreviews.last!.previews.count) previews")
        }
        let first = Measurement.median(withPreviews.compactMap(\.firstPreview))
        let final = Measurement.median(withPreviews.map(\.final))
        let plain = Measurement.median(without.map(\.final))
        let count = Measurement.median(withPreviews.map { Double($0.previews.count) })
        print("| Photo | Sent at | First preview, ms | Final image, ms | Ratio | Previews | Final without previews, ms |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        print("| \(name) | \(rate / 1000) KB/s | \(ms(first)) | \(ms(final)) | \(String(format: "%.2f", first / final)) | \(Int(count)) | \(ms(plain)) |")
        if let sheet, let last = withPreviews.last {
            try writeSheet(last.previews + [last.image], to: sheet)
            log("wrote \(sheet)")
        }
    }

    struct Load {
        var firstPreview: Double?
        var final: Double
        var previews: [Bitmap]
        var image: Bitmap
    }

    private func load(_ url: URL, previews: Bool) async throws -> Load {
        let pipeline = ImagePipeline(configuration: .standard.with {
            $0.dataLoader = DataLoader()
            $0.isProgressiveDecodingEnabled = previews
        })
        let start = ContinuousClock.now
        var shown: [Bitmap] = []
        var firstPreview: Double?
        for try await event in pipeline.events(for: ImageRequest(url: url, resize: .fit(width: size, height: size))) {
            switch event {
            case .progress: break
            case let .preview(preview):
                if firstPreview == nil { firstPreview = (ContinuousClock.now - start).seconds }
                shown.append(preview)
            case let .finished(response):
                return Load(firstPreview: firstPreview, final: (ContinuousClock.now - start).seconds, previews: shown, image: response.image)
            }
        }
        throw ValidationError("the load of \(url) ended without an image")
    }

    /// Every picture at 256 px wide, side by side, on white.
    private func writeSheet(_ pictures: [Bitmap], to path: String) throws {
        let cells = try pictures.map { try $0.resized(.width(256)) }
        let height = cells.map(\.height).max() ?? 1
        let gap = 8
        let width = cells.count * 256 + (cells.count - 1) * gap
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for (index, cell) in cells.enumerated() {
            let left = index * (256 + gap)
            for y in 0..<cell.height {
                let from = y * cell.bytesPerRow, to = (y * width + left) * 4
                pixels.replaceSubrange(to..<(to + cell.width * 4), with: cell.pixels[from..<(from + cell.width * 4)])
            }
        }
        let sheet = Bitmap(width: width, height: height, pixels: pixels, alphaMode: .opaque)
        try Data(ImageEncoder(format: .png).encode(sheet)).write(to: URL(fileURLWithPath: path))
    }

    private func ms(_ seconds: Double?) -> String { seconds.map { String(format: "%.0f", $0 * 1000) } ?? "—" }
}
