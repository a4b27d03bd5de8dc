import Foundation

/// The small-sigma path: a sampled Gaussian kernel in 8.8 fixed point.
///
/// Weights are integers summing to 256 and each tap is a 16-bit multiply-add over 16 channels
/// at once (`SIMD16<UInt16>`; four pixels), so a pass costs one widening load and two
/// operations per tap for every four pixels, with no conversion to floating point and back.
/// The largest sum, 255 × 256, fits in 16 bits. Rows are filtered in place along the row and
/// columns as whole rows at a time, so neither pass transposes. Quantising the weights to
/// 1/256 changes the result by less than the 8-bit rounding between the passes already does
/// (checked against the exact separable filter in a float model of this arithmetic).
extension GaussianFilter {
    /// Integer weights of the kernel's right half, centre first: `weights[0] + 2 × Σ
    /// weights[1...] == 256`.
    static func fixedPointHalfKernel(sigma: Double) -> [UInt16] {
        // Below a quarter pixel every side tap rounds to 0 of 256, so the kernel is the identity;
        // far below it, 2σ² underflows to 0 and the centre would be exp(-0/0), NaN.
        guard sigma.isFinite, sigma >= 0.25 else { return [256, 0] }
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        let exact = (0...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = exact[0] + 2 * exact.dropFirst().reduce(0, +)
        var weights = exact.map { UInt16((256 * $0 / total).rounded()) }
        // The centre absorbs the rounding, so a flat image stays exactly flat.
        let sides = 2 * weights.dropFirst().reduce(0, +)
        weights[0] = 256 - sides
        return weights
    }

    /// `image` blurred by a sampled Gaussian of `sigma`, premultiplied (or opaque), in place.
    ///
    /// Each row is filtered from a padded copy of itself and written back; the columns then
    /// read rows below the one they write as they are, and rows above from a ring of copies
    /// taken before those rows were overwritten, so the result is that of two whole images.
    static func kernelBlur(_ image: inout Bitmap, sigma: Double) {
        let width = image.width, height = image.height, rowBytes = width * 4, stride = image.bytesPerRow
        let half = fixedPointHalfKernel(sigma: sigma)
        let radius = half.count - 1
        // 16 bytes of slack: the last four-pixel group of a row may read and write past it.
        let slack = 16
        if image.alphaMode == .straight { premultiply(&image.pixels, width: width, height: height, bytesPerRow: stride) }
        let padded = UnsafeMutablePointer<UInt8>.allocate(capacity: (width + 2 * radius) * 4 + slack)
        padded.initialize(repeating: 0, count: (width + 2 * radius) * 4 + slack)
        let filtered = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes + slack)
        filtered.initialize(repeating: 0, count: rowBytes + slack)
        // The rows above the one being written, as the row pass left them: slot `y % radius`.
        let ring = UnsafeMutablePointer<UInt8>.allocate(capacity: radius * (rowBytes + slack))
        ring.initialize(repeating: 0, count: radius * (rowBytes + slack))
        // Rows y - radius ... y + radius of the column pass, and their last groups when a row
        // ends inside its last group (copied, so no read goes past the image).
        let taps = 2 * radius + 1
        let rows = UnsafeMutablePointer<UnsafeMutablePointer<UInt8>>.allocate(capacity: taps)
        let tails = UnsafeMutablePointer<UInt8>.allocate(capacity: taps * slack)
        tails.initialize(repeating: 0, count: taps * slack)
        defer { padded.deallocate(); filtered.deallocate(); ring.deallocate(); rows.deallocate(); tails.deallocate() }

        half.withUnsafeBufferPointer { half in
            image.pixels.withUnsafeMutableBufferPointer { pixels in
                let base = pixels.baseAddress!
                for y in 0..<height {
                    let row = base + y * stride
                    // The row with its end pixels repeated `radius` times at each side.
                    (padded + radius * 4).update(from: row, count: rowBytes)
                    for i in 0..<radius {
                        (padded + i * 4).update(from: row, count: 4)
                        (padded + (radius + width + i) * 4).update(from: row + rowBytes - 4, count: 4)
                    }
                    for x in Swift.stride(from: 0, to: width, by: 4) {
                        let centre = padded + (x + radius) * 4
                        var sum = widened(centre) &* half[0]
                        for k in 1...radius {
                            sum &+= (widened(centre - k * 4) &+ widened(centre + k * 4)) &* half[k]
                        }
                        store(sum, into: filtered + x * 4)
                    }
                    row.update(from: filtered, count: rowBytes)
                }
                for y in 0..<height {
                    // Rows beyond the edges repeat the edge row. Each as the row pass left it: in
                    // the ring once written over (rows above `y`), in the image otherwise.
                    for j in -radius...radius {
                        let r = min(max(y + j, 0), height - 1)
                        rows[radius + j] = r < y ? ring + (r % radius) * (rowBytes + slack) : base + r * stride
                    }
                    for offset in Swift.stride(from: 0, to: rowBytes, by: 16) {
                        var at = offset
                        if offset + 16 > rowBytes {
                            for t in 0..<taps {
                                (tails + t * slack).update(from: rows[t] + offset, count: rowBytes - offset)
                                rows[t] = tails + t * slack
                            }
                            at = 0
                        }
                        var sum = widened(rows[radius] + at) &* half[0]
                        for k in 1...radius {
                            sum &+= (widened(rows[radius - k] + at) &+ widened(rows[radius + k] + at)) &* half[k]
                        }
                        store(sum, into: filtered + offset)
                    }
                    let row = base + y * stride
                    (ring + (y % radius) * (rowBytes + slack)).update(from: row, count: rowBytes)
                    row.update(from: filtered, count: rowBytes)
                }
            }
        }
        image.alphaMode = image.alphaMode == .opaque ? .opaque : .premultiplied
    }

    @inline(__always)
    private static func widened(_ p: UnsafePointer<UInt8>) -> SIMD16<UInt16> {
        SIMD16<UInt16>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self))
    }

    /// Rounds the 8.8 sums to bytes: at most (255 × 256 + 128) >> 8 = 255, so no clamping.
    @inline(__always)
    private static func store(_ sum: SIMD16<UInt16>, into p: UnsafeMutablePointer<UInt8>) {
        let bytes = SIMD16<UInt8>(truncatingIfNeeded: (sum &+ 128) &>> 8)
        UnsafeMutableRawPointer(p).storeBytes(of: bytes, as: SIMD16<UInt8>.self)
    }

    /// Straight alpha to premultiplied, in place, rounding to nearest.
    private static func premultiply(_ pixels: inout [UInt8], width: Int, height: Int, bytesPerRow: Int) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<height {
                let row = buffer.baseAddress! + y * bytesPerRow
                for x in 0..<width {
                    let p = row + x * 4, a = UInt32(p[3])
                    guard a != 255 else { continue }
                    for c in 0..<3 { p[c] = UInt8((UInt32(p[c]) * a + 127) / 255) }
                }
            }
        }
    }
}
