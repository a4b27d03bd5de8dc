#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Precomputed Lanczos-3 weights for one axis of a resample.
///
/// Every output pixel has the same number of taps (`taps`), starting at `starts[i]`;
/// weights that fall outside the source are dropped and the rest renormalised, so edges
/// are neither darkened nor smeared with a clamped colour.
struct FilterBank {
    let outputCount: Int
    let taps: Int
    let starts: [Int]
    let weights: [Float]

    /// The Lanczos window with a = 3.
    static func lanczos3(_ x: Double) -> Double {
        let x = abs(x)
        if x < 1e-9 { return 1 }
        if x >= 3 { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }

    /// - Parameters:
    ///   - sourceCount: pixels along this axis of the source.
    ///   - origin, span: the source interval that maps onto `outputCount` pixels.
    init(sourceCount: Int, outputCount: Int, origin: Double, span: Double) {
        let scale = span / Double(outputCount)
        let filterScale = max(scale, 1)
        let support = 3 * filterScale
        let taps = min(sourceCount, Int((2 * support).rounded(.up)) + 2)
        var starts = [Int](repeating: 0, count: outputCount)
        var weights = [Float](repeating: 0, count: outputCount * taps)
        var scratch = [Double](repeating: 0, count: taps)
        for i in 0..<outputCount {
            let center = origin + (Double(i) + 0.5) * scale
            let low = max(0, Int((center - support).rounded(.down)))
            let high = min(sourceCount - 1, Int((center + support).rounded(.up)))
            let start = max(0, min(low, sourceCount - taps))
            var total = 0.0
            for k in 0..<taps { scratch[k] = 0 }
            if low <= high {
                for index in low...high where index - start < taps {
                    let weight = Self.lanczos3((Double(index) + 0.5 - center) / filterScale)
                    scratch[index - start] = weight
                    total += weight
                }
            }
            if abs(total) < 1e-12 {
                // Degenerate (a span narrower than a pixel at the very edge): nearest neighbour.
                let nearest = min(sourceCount - 1, max(0, Int(center)))
                for k in 0..<taps { scratch[k] = 0 }
                scratch[nearest - start] = 1
                total = 1
            }
            starts[i] = start
            for k in 0..<taps { weights[i * taps + k] = Float(scratch[k] / total) }
        }
        self.outputCount = outputCount
        self.taps = taps
        self.starts = starts
        self.weights = weights
    }

    /// The source range any output pixel reads.
    var sourceRange: Range<Int> {
        guard let first = starts.min(), let last = starts.max() else { return 0..<0 }
        return first..<(last + taps)
    }
}
