#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Measures how far one image is from another, for tests and benchmarks.
package enum ImageComparison {
    /// Peak signal-to-noise ratio in dB over the colour channels of two same-sized images,
    /// both flattened over white first. `.infinity` for identical pixels.
    package static func psnr(_ a: Bitmap, _ b: Bitmap) -> Double {
        precondition(a.width == b.width && a.height == b.height, "PSNR needs equal sizes, got \(a.width)x\(a.height) and \(b.width)x\(b.height)")
        let mse = meanSquaredError(a.flattened(), b.flattened())
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    static func meanSquaredError(_ a: Bitmap, _ b: Bitmap) -> Double {
        var total = 0.0
        for y in 0..<a.height {
            let rowA = y * a.bytesPerRow, rowB = y * b.bytesPerRow
            var rowTotal = 0
            for x in 0..<a.width {
                for c in 0..<3 {
                    let d = Int(a.pixels[rowA + x * 4 + c]) - Int(b.pixels[rowB + x * 4 + c])
                    rowTotal += d * d
                }
            }
            total += Double(rowTotal)
        }
        return total / Double(a.width * a.height * 3)
    }
}
