import Foundation
import Imagery

/// Progress for `imagery grid` on standard error: a live bar with done/total, bytes, rate and
/// ETA on a terminal; one plain line per finished image otherwise.
final class GridProgress: Sendable {
    private let total: Int
    private let pipeline: ImagePipeline
    private let start = ContinuousClock.now
    private let done = Locked(0)
    private let isTerminal = isatty(STDERR_FILENO) != 0
    private let pass: String
    /// Bytes downloaded before this pass, so that the rate is this pass's own.
    private let baseline: Int

    init(total: Int, pipeline: ImagePipeline, pass: String) {
        self.total = total
        self.pipeline = pipeline
        self.pass = pass
        baseline = pipeline.statistics.bytesDownloaded
    }

    func finished(_ label: String, milliseconds: Double, outcome: String) {
        // Counted and written under one lock, so that lines never appear out of order.
        done.withLock { done in
            done += 1
            write(count: done, label: label, milliseconds: milliseconds, outcome: outcome)
        }
    }

    private func write(count: Int, label: String, milliseconds: Double, outcome: String) {
        let elapsed = (ContinuousClock.now - start).seconds
        let bytes = Double(pipeline.statistics.bytesDownloaded - baseline)
        if isTerminal {
            let width = 24
            let filled = total > 0 ? width * count / total : width
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            let rate = elapsed > 0 ? bytes / elapsed : 0
            let eta = count > 0 ? elapsed / Double(count) * Double(total - count) : 0
            let line = String(
                format: "\r%@ [%@] %d/%d  %@  %@/s  ETA %.1fs ", pass, bar, count, total,
                Self.format(bytes), Self.format(rate), eta
            )
            FileHandle.standardError.write(Data(line.utf8))
            if count == total { FileHandle.standardError.write(Data("\n".utf8)) }
        } else {
            let line = String(format: "%@ %d/%d %@ %.0f ms %@\n", pass, count, total, label, milliseconds, outcome)
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    static func format(_ bytes: Double) -> String {
        bytes >= 1_048_576 ? String(format: "%.1f MB", bytes / 1_048_576) : String(format: "%.0f KB", bytes / 1024)
    }
}
