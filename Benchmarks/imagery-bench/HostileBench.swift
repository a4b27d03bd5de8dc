import Foundation
import Imagery
import ImageryCodecs

/// A progressive JPEG whose header claims 65,000×65,000.
struct HostileBench {
    let tools: ExternalTools
    let output: String

    func measure(_ progressive: [UInt8]) throws -> BenchReport.Hostile {
        guard let hostile = JPEGFrameHeader.settingSize(of: progressive, width: 65_000, height: 65_000) else {
            return BenchReport.Hostile()
        }
        let path = "\(output)/hostile_65000x65000_progressive.jpg"
        try Data(hostile).write(to: URL(fileURLWithPath: path))
        var result = BenchReport.Hostile()
        var times: [Double] = []
        var message = ""
        for _ in 0..<50 {
            times.append(Measurement.time {
                do { _ = try Thumbnailer(resize: .fit(width: 256, height: 256)).thumbnail(from: hostile) } catch { message = "\(error)" }
            })
        }
        result.imageryInProcessMs = Measurement.median(times)
        result.imageryError = message
        let ours = try Measurement.peakMemory([tools.imageryExecutable, "thumbnail", path, "-o", "\(output)/hostile"])
        result.imageryProcessMs = ours.milliseconds
        result.imageryPeakMB = ours.megabytes
        if let vips = tools.vips {
            let theirs = try Measurement.peakMemory([vips, "--size", "256", "-o", "\(tools.absoluteOutput)/hostile/%s.jpg", path], timeoutSeconds: 60)
            result.vipsMs = theirs.milliseconds
            result.vipsPeakMB = theirs.megabytes
            result.vipsTimedOut = theirs.timedOut
        }
        return result
    }
}
