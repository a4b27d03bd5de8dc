import Foundation

/// Everything one `imagery-bench` run measured, as JSON and as the README's tables.
struct BenchReport: Codable {
    struct Quality: Codable {
        var mean: Double
        var minimum: Double
        /// Outputs identical to the reference (sources no larger than the box).
        var identical = 0
        var perFile: [String: Double] = [:]
    }

    struct GroupRow: Codable {
        var title: String
        var target: String
        var files: [String]
        var eighths: [String: Int] = [:]
        /// File → [floor, Imagery] medians in ms.
        var perFileMs: [String: [Double]] = [:]
        var floorMs = Double.nan
        var imageryMs = Double.nan
        var imageryBatch1Ms: Double?
        var imageryBatchAllMs: Double?
        var vipsMs: Double?
        var pillowMs: Double?
        var djpegMs: Double?
        var psnr: [String: Quality] = [:]
    }

    struct Memory: Codable {
        var file: String
        var imageryIdleMB = Double.nan
        var imageryMB = Double.nan
        var vipsMB: Double?
        var pythonIdleMB: Double?
        var pillowMB: Double?
    }

    struct Hostile: Codable {
        var imageryInProcessMs = Double.nan
        var imageryError = ""
        var imageryProcessMs = Double.nan
        var imageryPeakMB = Double.nan
        var vipsMs: Double?
        var vipsPeakMB: Double?
        var vipsTimedOut = false
    }

    var size: Int
    var repetitions: Int
    var toolVersions: [String: String] = [:]
    var groups: [GroupRow] = []
    var memory: Memory?
    var hostile: Hostile?

    func markdown() -> String {
        func ms(_ value: Double?) -> String { value.map { $0.isNaN ? "–" : String(format: "%.1f", $0) } ?? "–" }
        func ratio(_ value: Double?, _ floor: Double) -> String {
            guard let value, !value.isNaN, floor > 0 else { return "–" }
            return String(format: "%.1f (%.2f×)", value, value / floor)
        }
        func db(_ quality: Quality?) -> String {
            guard let quality else { return "–" }
            let identical = quality.identical > 0 ? " (+\(quality.identical) identical)" : ""
            return String(format: "%.1f / %.1f", quality.mean, quality.minimum) + identical
        }
        var lines = [
            "Thumbnails to a \(size) px box, JPEG q85 output; ms/image, median of \(repetitions) runs; ratio to the codec floor in brackets.",
            "",
            "| Files | Target | Codec floor | Imagery (in-process) | Imagery CLI, 1 job | vipsthumbnail | Pillow draft | Imagery CLI, all cores | djpeg process |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for g in groups {
            lines.append("| \(g.title) (\(g.files.count)) | \(g.target) | \(ms(g.floorMs)) | \(ratio(g.imageryMs, g.floorMs)) | \(ratio(g.imageryBatch1Ms, g.floorMs)) | \(ratio(g.vipsMs, g.floorMs)) | \(ratio(g.pillowMs, g.floorMs)) | \(ratio(g.imageryBatchAllMs, g.floorMs)) | \(ms(g.djpegMs)) |")
        }
        lines += ["", "PSNR against the full-decode Lanczos-3 reference at each output's size, PNG output, dB (mean / minimum):", "",
                  "| Files | Imagery | vipsthumbnail | Pillow draft |", "|---|---:|---:|---:|"]
        for g in groups {
            lines.append("| \(g.title) | \(db(g.psnr["Imagery"])) | \(db(g.psnr["vipsthumbnail"])) | \(db(g.psnr["Pillow"])) |")
        }
        if let m = memory {
            lines += ["", "Peak RSS thumbnailing \(m.file) (MB):", "",
                      "| | Idle process | Thumbnail | Added |", "|---|---:|---:|---:|",
                      "| Imagery CLI | \(ms(m.imageryIdleMB)) | \(ms(m.imageryMB)) | \(ms(m.imageryMB - m.imageryIdleMB)) |",
                      "| vipsthumbnail | – | \(ms(m.vipsMB)) | – |",
                      "| Pillow draft | \(ms(m.pythonIdleMB)) | \(ms(m.pillowMB)) | \(ms(m.pillowMB.flatMap { p in m.pythonIdleMB.map { p - $0 } })) |"]
        }
        if let h = hostile {
            lines += ["", "Progressive JPEG whose header claims 65,000×65,000:", "",
                      "| | Time to refuse | Peak RSS (MB) | Outcome |", "|---|---:|---:|---|",
                      "| Imagery, in-process | \(String(format: "%.3f", h.imageryInProcessMs)) ms | – | \(h.imageryError) |",
                      "| Imagery CLI process | \(ms(h.imageryProcessMs)) ms | \(ms(h.imageryPeakMB)) | exit 1 |",
                      "| vipsthumbnail | \(ms(h.vipsMs)) ms | \(ms(h.vipsPeakMB)) | \(h.vipsTimedOut ? "killed after 60 s" : "exited") |"]
        }
        if !toolVersions.isEmpty {
            lines += ["", "Tools: " + toolVersions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + "."]
        }
        return lines.joined(separator: "\n")
    }
}
