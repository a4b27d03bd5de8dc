import Foundation
import Imagery

/// `/info`'s `perceptual_hash`: the DCT hash of pHash and Python's imagehash. The image in grey,
/// averaged down to 32 × 32 (its aspect ratio ignored), its 8 × 8 lowest frequencies of a 2-D
/// DCT, and a bit for each above their median: 64 bits, in hex. Near-duplicates differ in a few
/// bits (compare by Hamming distance); a resized or recompressed copy keeps most of them.
enum PerceptualHash {
    static func hash(of image: Bitmap) -> String {
        let size = 32
        var grey = [Double](repeating: 0, count: size * size), weights = grey
        let image = image.withStraightAlpha()
        for y in 0..<image.height {
            let row = y * size / image.height
            for x in 0..<image.width {
                let pixel = image.pixel(x: x, y: y), cell = row * size + x * size / image.width
                grey[cell] += 0.299 * Double(pixel.red) + 0.587 * Double(pixel.green) + 0.114 * Double(pixel.blue)
                weights[cell] += 1
            }
        }
        for index in grey.indices where weights[index] > 0 { grey[index] /= weights[index] }
        // A separable DCT-II, keeping the 8 lowest frequencies each way.
        let keep = 8
        let basis = (0..<keep).map { u in (0..<size).map { x in cos(Double.pi / Double(size) * (Double(x) + 0.5) * Double(u)) } }
        var rows = [Double](repeating: 0, count: size * keep)
        for y in 0..<size {
            for u in 0..<keep {
                var sum = 0.0
                for x in 0..<size { sum += grey[y * size + x] * basis[u][x] }
                rows[y * keep + u] = sum
            }
        }
        var coefficients = [Double](repeating: 0, count: keep * keep)
        for v in 0..<keep {
            for u in 0..<keep {
                var sum = 0.0
                for y in 0..<size { sum += rows[y * keep + u] * basis[v][y] }
                coefficients[v * keep + u] = sum
            }
        }
        let sorted = coefficients.sorted()
        let median = (sorted[31] + sorted[32]) / 2
        var bits: UInt64 = 0
        for (index, value) in coefficients.enumerated() where value > median { bits |= 1 << UInt64(63 - index) }
        return String(format: "%016llx", bits)
    }
}
