import Foundation
import Imagery

/// The end-of-run summary of `imagery grid`, as text or as one JSON object with stable field
/// names (`requested`, `distinct`, `downloads`, `coalesced`, `memoryHits`, `diskHits`,
/// `failures` [{source, reason}], `p50Ms`, `p95Ms`, `output`, plus `width` and `height`).
struct GridSummary: Encodable {
    struct Failure: Encodable, Sendable {
        var source: String
        var reason: String
    }

    var requested: Int
    var distinct: Int
    var downloads: Int
    var coalesced: Int
    var memoryHits: Int
    var diskHits: Int
    var failures: [Failure]
    var p50Ms: Double
    var p95Ms: Double
    var output: String
    var width: Int
    var height: Int

    init(
        requested: Int, distinct: Int, statistics: ImagePipeline.Statistics, failures: [Failure],
        latencies: [Double], output: String, size: PixelSize
    ) {
        self.requested = requested
        self.distinct = distinct
        downloads = statistics.downloads
        coalesced = statistics.coalesced
        memoryHits = statistics.memoryHits
        diskHits = statistics.diskHits
        self.failures = failures
        p50Ms = Self.percentile(latencies, 0.50)
        p95Ms = Self.percentile(latencies, 0.95)
        self.output = output
        width = size.width
        height = size.height
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count - 1)).rounded())
        return (sorted[rank] * 10).rounded() / 10
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
    }

    func text() -> String {
        var lines = [
            "grid: \(requested) images (\(distinct) distinct), \(downloads) downloads, \(coalesced) coalesced, "
                + "\(memoryHits) memory hits, \(diskHits) disk hits",
            String(format: "grid: latency p50 %.0f ms, p95 %.0f ms", p50Ms, p95Ms),
        ]
        for failure in failures { lines.append("grid: failed \(failure.source): \(failure.reason)") }
        lines.append("grid: wrote \(output) (\(width)x\(height))")
        return lines.joined(separator: "\n")
    }
}
