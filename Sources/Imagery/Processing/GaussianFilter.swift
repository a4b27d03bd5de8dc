import Foundation

/// A separable Gaussian blur over 8-bit RGBA.
///
/// Small sigmas (up to ``kernelSigmaLimit``) use a sampled Gaussian kernel of radius ⌈3σ⌉ in
/// 8.8 fixed point (`GaussianFilter+Kernel.swift`), whose cost grows with sigma. Larger sigmas
/// use three passes of an *extended* box filter per axis in `SIMD4<Float>`: a box of integer
/// radius plus a fractional weight on its two outer taps, chosen so the three passes have
/// exactly the Gaussian's variance. Each pass costs the same at any radius (a running sum), so
/// sigma 50 costs what sigma 5 does. The result is a piecewise-quadratic bell rather than a
/// Gaussian. `ProcessingReferenceTests` holds both paths to libvips' float-precision Gaussian
/// on a photo, by PSNR; the small gap at low sigma is the 8-bit rounding between passes
/// (Benchmarks/README.md has the figures).
///
/// Edges extend the nearest pixel (no dark or transparent border bleeds in). Straight alpha
/// is premultiplied first, so transparent pixels never tint their neighbours, and the
/// result is left premultiplied for the caller to convert.
///
/// The boxes filter rows and columns in strips of ``stripWidth`` lines, lane by lane in the
/// innermost loop: independent accumulators that vectorise, where one line at a time would
/// wait on a single accumulator's latency at every tap.
package enum GaussianFilter {
    /// Up to this sigma the kernel is a sampled Gaussian; above it, three extended boxes.
    package static let kernelSigmaLimit = 2.0
    static let stripWidth = 16

    /// `image` blurred by `sigma`, premultiplied (or opaque). `sigma` must be positive.
    package static func blurred(_ image: Bitmap, sigma: Double) -> Bitmap {
        var copy = image
        blur(&copy, sigma: sigma)
        return copy
    }

    /// ``blurred(_:sigma:)`` in place: pixels nothing else holds are blurred without a copy, and
    /// the blur holds only its line buffers besides. Both passes read a strip of lines before
    /// they write it back, so the rows' result is the columns' input in the same pixels.
    package static func blur(_ image: inout Bitmap, sigma: Double) {
        if sigma <= kernelSigmaLimit { return kernelBlur(&image, sigma: sigma) }
        let width = image.width, height = image.height, stride = image.bytesPerRow
        let passes = Passes(sigma: sigma)
        let premultiply = image.alphaMode == .straight
        let alpha = image.alphaMode != .opaque
        let longest = max(width, height)
        let line = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: longest * stripWidth)
        let other = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: longest * stripWidth)
        let padded = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: (longest + 2 * passes.padding) * stripWidth)
        defer { line.deallocate(); other.deallocate(); padded.deallocate() }

        image.pixels.withUnsafeMutableBufferPointer { pixels in
            let base = pixels.baseAddress!
            // Rows in strips of `stripWidth` too: each filtered element holds one pixel of every
            // row in the strip, so the inner loops run over independent lanes and vectorise,
            // instead of waiting on one accumulator.
            for y0 in Swift.stride(from: 0, to: height, by: stripWidth) {
                let lanes = min(stripWidth, height - y0)
                for lane in 0..<lanes {
                    let row = base + (y0 + lane) * stride
                    for x in 0..<width { line[x * lanes + lane] = load(row + x * 4, premultiply: premultiply) }
                }
                let result = passes.run(line, other, padded, count: width, lanes: lanes)
                for lane in 0..<lanes {
                    let row = base + (y0 + lane) * stride
                    for x in 0..<width { store(result[x * lanes + lane], into: row + x * 4) }
                }
            }
            for x0 in Swift.stride(from: 0, to: width, by: stripWidth) {
                let lanes = min(stripWidth, width - x0)
                for y in 0..<height {
                    let row = base + y * stride + x0 * 4
                    for lane in 0..<lanes { line[y * lanes + lane] = load(row + lane * 4, premultiply: false) }
                }
                let result = passes.run(line, other, padded, count: height, lanes: lanes)
                for y in 0..<height {
                    let row = base + y * stride + x0 * 4
                    for lane in 0..<lanes { store(result[y * lanes + lane], into: row + lane * 4) }
                }
            }
        }
        image.alphaMode = alpha ? .premultiplied : .opaque
    }

    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>, premultiply: Bool) -> SIMD4<Float> {
        // One 4-byte load and vector widenings; per-byte `Float(p[i])` costs more than the filter.
        let bytes = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self)
        let value = SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: bytes))
        guard premultiply, bytes.w != 255 else { return value }
        let a = value.w * (1 / 255)
        return SIMD4(value.x * a, value.y * a, value.z * a, value.w)
    }

    /// Rounds to nearest and clamps to 0...255 without the range checks of `UInt8(_: Float)`:
    /// adding 1.5 × 2²³ leaves the rounded integer in the low mantissa bits.
    @inline(__always)
    static func store(_ value: SIMD4<Float>, into p: UnsafeMutablePointer<UInt8>) {
        let low = SIMD4<Float>(repeating: 0), high = SIMD4<Float>(repeating: 255)
        var clamped = value.replacing(with: low, where: value .< low)
        clamped.replace(with: high, where: clamped .> high)
        let bits = unsafeBitCast(clamped + SIMD4(repeating: 12_582_912), to: SIMD4<UInt32>.self)
        UnsafeMutableRawPointer(p).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: bits), as: SIMD4<UInt8>.self)
    }

    /// The 1-D filtering of one axis by three extended boxes.
    struct Passes {
        let radius: Int
        let fraction: Float
        /// Elements replicated at each end of a line, so no tap reads outside it.
        let padding: Int

        init(sigma: Double) {
            // One pass of an extended box of radius r + a has variance
            // (r(r+1)(2r+1)/3 + 2a(r+1)²) / (2r+1+2a); three passes share σ².
            let variance = sigma * sigma / 3
            let r = Int(((12 * variance + 1).squareRoot() - 1) / 2)
            let rr = Double(r)
            let a = (2 * rr + 1) * (rr * (rr + 1) / 3 - variance) / (2 * (variance - (rr + 1) * (rr + 1)))
            radius = r
            fraction = Float(a)
            padding = r + 1
        }

        /// Filters `line` (`count` elements of `lanes` pixels each) and returns the buffer
        /// holding the result: `line` or `other`.
        func run(
            _ line: UnsafeMutablePointer<SIMD4<Float>>, _ other: UnsafeMutablePointer<SIMD4<Float>>,
            _ padded: UnsafeMutablePointer<SIMD4<Float>>, count: Int, lanes: Int
        ) -> UnsafeMutablePointer<SIMD4<Float>> {
            var from = line, to = other
            for _ in 0..<3 {
                pad(from, into: padded, count: count, lanes: lanes)
                box(padded, into: to, count: count, lanes: lanes, radius: radius, fraction: fraction)
                swap(&from, &to)
            }
            return from
        }

        private func pad(_ line: UnsafePointer<SIMD4<Float>>, into padded: UnsafeMutablePointer<SIMD4<Float>>, count: Int, lanes: Int) {
            // The interior in one copy; only the replicated ends element by element.
            (padded + padding * lanes).update(from: line, count: count * lanes)
            let last = line + (count - 1) * lanes
            for i in 0..<padding {
                (padded + i * lanes).update(from: line, count: lanes)
                (padded + (padding + count + i) * lanes).update(from: last, count: lanes)
            }
        }

        private func box(
            _ padded: UnsafePointer<SIMD4<Float>>, into out: UnsafeMutablePointer<SIMD4<Float>>,
            count: Int, lanes: Int, radius r: Int, fraction a: Float
        ) {
            let scale = 1 / (Float(2 * r + 1) + 2 * a)
            let centre = padded + padding * lanes
            var sums = [SIMD4<Float>](repeating: .zero, count: lanes)
            sums.withUnsafeMutableBufferPointer { sums in
                for j in -r...r {
                    let tap = centre + j * lanes
                    for lane in 0..<lanes { sums[lane] += tap[lane] }
                }
                for i in 0..<count {
                    let entering = centre + (i + r) * lanes, leaving = centre + (i - r - 1) * lanes
                    if i > 0 { for lane in 0..<lanes { sums[lane] += entering[lane] - leaving[lane] } }
                    let outerLeft = centre + (i - r - 1) * lanes, outerRight = centre + (i + r + 1) * lanes
                    let target = out + i * lanes
                    for lane in 0..<lanes {
                        target[lane] = (sums[lane] + (outerLeft[lane] + outerRight[lane]) * a) * scale
                    }
                }
            }
        }
    }
}

extension GaussianFilter {
    /// The line buffers of a blur of an image of `size`: the small kernel's ring and padded
    /// rows, or the boxes' three strips of lines at 16 bytes a pixel, one of them padded.
    static func scratchPixels(for size: PixelSize, sigma: Double) -> Int {
        if sigma <= kernelSigmaLimit { return (Int((3 * sigma).rounded(.up)) + 4) * (size.width + 8) }
        let longest = Swift.max(size.width, size.height)
        return 4 * stripWidth * (3 * longest + 2 * Passes(sigma: sigma).padding)
    }
}
