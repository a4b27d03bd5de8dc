#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Structural similarity (Wang, Bovik, Sheikh and Simoncelli, 2004) of two images' luma, as
/// scikit-image computes it with `gaussian_weights=True, sigma=1.5,
/// use_sample_covariance=False, data_range=255`: BT.601 luma, an 11-tap Gaussian window of
/// σ 1.5, and the mean over the image less a 5-pixel border. Transparent pixels are flattened
/// onto a background first.
///
/// A ``Reference`` keeps one side's filtered planes, so that a quality search measures each
/// candidate against it at the cost of three filtered planes, not five.
///
/// ```swift
/// let reference = StructuralSimilarity.Reference(original)
/// let dssim = reference.dssim(decodedCandidate)    // (1 - SSIM) / 2; 0 for identical images
/// ```
package enum StructuralSimilarity {
    /// The window: scipy's `gaussian_filter` with σ 1.5 and its default truncation at 3.5 σ.
    static let radius = 5
    static let weights: [Float] = {
        let sigma = 1.5
        let raw = (-radius...radius).map { exp(-0.5 * Double($0 * $0) / (sigma * sigma)) }
        let total = raw.reduce(0, +)
        return raw.map { Float($0 / total) }
    }()

    static let c1 = Float((0.01 * 255) * (0.01 * 255))
    static let c2 = Float((0.03 * 255) * (0.03 * 255))

    /// Mean SSIM of `a` and `b`, which must be the same size.
    package static func ssim(_ a: Bitmap, _ b: Bitmap, background: RGBA = .white) -> Double {
        Reference(a, background: background).ssim(b)
    }

    /// One image's luma and its filtered mean and mean square, ready to be compared.
    package struct Reference: Sendable {
        let width: Int
        let height: Int
        let background: RGBA
        let luma: [Float]
        let mean: [Float]
        let meanSquare: [Float]

        /// The reference side of comparisons with `image`.
        package init(_ image: Bitmap, background: RGBA = .white) {
            width = image.width
            height = image.height
            self.background = background
            luma = StructuralSimilarity.luma(image, background: background)
            mean = StructuralSimilarity.filtered(luma, width: width, height: height)
            meanSquare = StructuralSimilarity.filtered(luma.map { $0 * $0 }, width: width, height: height)
        }

        /// Mean SSIM of the reference and `candidate`; -1, as unlike as can be, for a candidate of
        /// another size (a decode of an encoder's bytes that came back turned), rather than a trap.
        package func ssim(_ candidate: Bitmap) -> Double {
            guard candidate.width == width, candidate.height == height else { return -1 }
            let y = StructuralSimilarity.luma(candidate, background: background)
            var products = [Float](repeating: 0, count: y.count)
            for index in 0..<y.count { products[index] = luma[index] * y[index] }
            let meanY = StructuralSimilarity.filtered(y, width: width, height: height)
            let meanYY = StructuralSimilarity.filtered(y.map { $0 * $0 }, width: width, height: height)
            let meanXY = StructuralSimilarity.filtered(products, width: width, height: height)
            // scikit-image averages away from the border, where the window is whole; an image
            // too small for that is averaged whole.
            let border = width > 2 * radius && height > 2 * radius ? radius : 0
            var total = 0.0
            for row in border..<(height - border) {
                var rowTotal: Float = 0
                for column in border..<(width - border) {
                    let index = row * width + column
                    let ux = mean[index], uy = meanY[index]
                    let vx = meanSquare[index] - ux * ux, vy = meanYY[index] - uy * uy, vxy = meanXY[index] - ux * uy
                    rowTotal += ((2 * ux * uy + c1) * (2 * vxy + c2)) / ((ux * ux + uy * uy + c1) * (vx + vy + c2))
                }
                total += Double(rowTotal)
            }
            return total / Double((width - 2 * border) * (height - 2 * border))
        }

        /// (1 − SSIM) / 2: 0 for identical images.
        package func dssim(_ candidate: Bitmap) -> Double {
            (1 - ssim(candidate)) / 2
        }
    }

    /// BT.601 luma of `image` flattened onto `background`, in 0...255.
    static func luma(_ image: Bitmap, background: RGBA) -> [Float] {
        let flat = image.alphaMode == .opaque ? image : image.flattened(over: background)
        var luma = [Float](repeating: 0, count: flat.width * flat.height)
        flat.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<flat.height {
                let start = row * flat.bytesPerRow
                for column in 0..<flat.width {
                    let at = start + column * 4
                    luma[row * flat.width + column] = 0.299 * Float(pixels[at]) + 0.587 * Float(pixels[at + 1]) + 0.114 * Float(pixels[at + 2])
                }
            }
        }
        return luma
    }

    /// `plane` through the separable window, edges mirrored as scipy's `reflect` mode does.
    ///
    /// Each pass adds one tap's weighted row at a time into the output row, through pointers
    /// with no index arithmetic that can overflow, so that the optimizer turns the inner loops
    /// into vector multiply-adds; a debug build runs them as plain scalar loops, which costs far
    /// less there than explicit SIMD types would.
    static func filtered(_ plane: [Float], width: Int, height: Int) -> [Float] {
        var across = [Float](repeating: 0, count: plane.count)
        var result = [Float](repeating: 0, count: plane.count)
        let taps = weights, span = 2 * radius + 1
        @inline(__always) func mirrored(_ index: Int, _ count: Int) -> Int {
            var index = index
            // Half-sample symmetric: -1 reads 0, count reads count - 1; a short plane may bounce.
            while index < 0 || index >= count { index = index < 0 ? -index - 1 : 2 * count - index - 1 }
            return index
        }
        plane.withUnsafeBufferPointer { source in
            across.withUnsafeMutableBufferPointer { out in
                guard let source = source.baseAddress, let out = out.baseAddress else { return }
                // Along the rows: the columns whose window is whole first, a tap at a time; the
                // edges' columns one at a time, mirrored.
                let inner = max(0, width - 2 * radius)
                for row in 0..<height {
                    let from = source + row * width, to = out + row * width
                    if inner > 0 {
                        for tap in 0..<span {
                            let weight = taps[tap], shifted = from + tap, target = to + radius
                            for column in 0..<inner { target[column] += weight * shifted[column] }
                        }
                    }
                    for column in 0..<width where column < radius || column >= radius + inner {
                        var sum: Float = 0
                        for tap in 0..<span { sum += taps[tap] * from[mirrored(column - radius + tap, width)] }
                        to[column] = sum
                    }
                }
            }
        }
        across.withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { out in
                guard let source = source.baseAddress, let out = out.baseAddress else { return }
                // Down the columns: each output row is the window's rows (mirrored at the edges)
                // weighted, a whole row at a time.
                for row in 0..<height {
                    let to = out + row * width
                    for tap in 0..<span {
                        let weight = taps[tap], from = source + mirrored(row - radius + tap, height) * width
                        for column in 0..<width { to[column] += weight * from[column] }
                    }
                }
            }
        }
        return result
    }
}
