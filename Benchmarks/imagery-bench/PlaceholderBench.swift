import ArgumentParser
import Foundation
import Imagery
import ImageryCodecs

/// `imagery-bench placeholders`: decoding a ThumbHash to its 32-pixel picture (issue 25's goal:
/// at most 50 µs in a release build), a 4 × 3 BlurHash to 32 × 32, and a hit in the cache of
/// decoded placeholders, with hashes of the photos in the clone.
struct PlaceholderBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "placeholders",
        abstract: "Benchmark placeholder decoding: ThumbHash and BlurHash to 32-pixel pictures, and a cache hit.",
        discussion: "Each figure is the median, over --repetitions batches, of a batch of --batch decodes divided by its size."
    )

    @Option(help: "Batches per hash (the median is reported).")
    var repetitions = 25

    @Option(help: "Decodes per batch.")
    var batch = 200

    @Option(help: "Photos to hash (default: the clone's two 12 MP JPEGs and the rocket test image).")
    var photos = [
        "Benchmarks/Corpus/jpeg_large_base_sunset_4272x2848.jpg",
        "Benchmarks/Corpus/jpeg_large_prog_bridge_4352x2448.jpg",
        "Tests/ImageryCodecsTests/Resources/jpeg_small_base_rocket_640x427.jpg",
    ]

    func run() async throws {
        var rows = ["| Photo | ThumbHash bytes | ThumbHash → 32 px, µs | BlurHash 4×3 → 32×32, µs | cache hit, µs |", "|---|---:|---:|---:|---:|"]
        for path in photos {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let thumbnail = try Thumbnailer(resize: .fit(width: 100, height: 100)).thumbnail(from: bytes)
            let thumbHash = try ThumbHash(image: thumbnail)
            let blurHash = try BlurHash(image: thumbnail, componentsX: 4, componentsY: 3)
            let placeholder = PlaceholderHash.thumbHash(thumbHash)
            _ = placeholder.image   // now cached
            // Each result feeds `sink`, printed below, so the optimiser cannot drop a decode.
            var sink = 0
            let thumb = microseconds { sink &+= Int(thumbHash.image().pixels[0]) }
            let blur = microseconds { sink &+= Int(blurHash.image(width: 32, height: 32).pixels[0]) }
            let hit = microseconds { sink &+= placeholder.image.width }
            let name = URL(fileURLWithPath: path).lastPathComponent
            log("\(name): ThumbHash \(format(thumb)) µs, BlurHash \(format(blur)) µs, hit \(format(hit)) µs (checksum \(sink))")
            rows.append("| \(name) | \(thumbHash.bytes.count) | \(format(thumb)) | \(format(blur)) | \(format(hit)) |")
        }
        print(rows.joined(separator: "\n"))
    }

    /// The median over the batches of one call of `body`, in microseconds.
    private func microseconds(_ body: () -> Void) -> Double {
        for _ in 0..<batch { body() }   // warm up
        let batches = (0..<repetitions).map { _ in Measurement.time { for _ in 0..<batch { body() } } * 1000 / Double(batch) }
        return Measurement.median(batches)
    }

    private func format(_ value: Double) -> String { String(format: value < 10 ? "%.2f" : "%.1f", value) }
}
