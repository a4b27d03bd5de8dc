@testable import Imagery

/// The whole-image implementations that the streaming and in-place ones replaced, as they were
/// (`git show 586b3d0`): the resampler with an intermediate of every source row it reads, the
/// blur with an intermediate and an output image, and the sharpen with a third. The tests hold
/// the new ones to these, pixel for pixel.
enum WholeImageReference {
    /// Resamples the region `sourceRect` (in `source` pixels) of `source` to `outputSize`.
    static func resample(_ source: Bitmap, sourceRect: SourceRect, to outputSize: PixelSize) -> Bitmap {
        let horizontal = FilterBank(
            sourceCount: source.width, outputCount: outputSize.width, origin: sourceRect.x, span: sourceRect.width
        )
        let vertical = FilterBank(
            sourceCount: source.height, outputCount: outputSize.height, origin: sourceRect.y, span: sourceRect.height
        )
        let rows = vertical.sourceRange
        let outWidth = outputSize.width
        let hasAlpha = source.alphaMode != .opaque
        let premultiplyOnLoad = source.alphaMode == .straight

        let intermediate = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: outWidth * rows.count)
        defer { intermediate.deallocate() }
        let sourceRow = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: source.width)
        defer { sourceRow.deallocate() }

        source.pixels.withUnsafeBufferPointer { pixels in
            let base = UnsafeRawPointer(pixels.baseAddress!)
            horizontal.weights.withUnsafeBufferPointer { weights in
                horizontal.starts.withUnsafeBufferPointer { starts in
                    for (rowIndex, y) in rows.enumerated() {
                        loadRow(base + y * source.bytesPerRow, count: source.width, premultiply: premultiplyOnLoad, into: sourceRow)
                        let out = intermediate + rowIndex * outWidth
                        filterRow(sourceRow, starts: starts, weights: weights, taps: horizontal.taps, count: outWidth, into: out)
                    }
                }
            }
        }

        var output = [UInt8](repeating: 0, count: outWidth * outputSize.height * 4)
        let accumulator = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: outWidth)
        defer { accumulator.deallocate() }
        output.withUnsafeMutableBufferPointer { out in
            vertical.weights.withUnsafeBufferPointer { weights in
                for y in 0..<outputSize.height {
                    accumulator.initialize(repeating: .zero, count: outWidth)
                    let start = vertical.starts[y] - rows.lowerBound
                    for k in 0..<vertical.taps {
                        let weight = weights[y * vertical.taps + k]
                        if weight == 0 { continue }
                        let row = intermediate + (start + k) * outWidth
                        for x in 0..<outWidth { accumulator[x] += row[x] * weight }
                    }
                    storeRow(accumulator, count: outWidth, alpha: hasAlpha, into: out.baseAddress! + y * outWidth * 4)
                }
            }
        }
        return Bitmap(
            width: outWidth, height: outputSize.height, pixels: output,
            alphaMode: hasAlpha ? .straight : .opaque, orientation: source.orientation, metadata: source.metadata
        )
    }

    @inline(__always)
    private static func loadRow(_ row: UnsafeRawPointer, count: Int, premultiply: Bool, into out: UnsafeMutablePointer<SIMD4<Float>>) {
        if premultiply {
            let scale: Float = 1 / 255
            for x in 0..<count {
                let value = PixelConversion.float(row.loadUnaligned(fromByteOffset: x * 4, as: SIMD4<UInt8>.self))
                let alpha = value.w * scale
                out[x] = SIMD4(value.x * alpha, value.y * alpha, value.z * alpha, value.w)
            }
        } else {
            for x in 0..<count {
                out[x] = PixelConversion.float(row.loadUnaligned(fromByteOffset: x * 4, as: SIMD4<UInt8>.self))
            }
        }
    }

    @inline(__always)
    private static func filterRow(
        _ row: UnsafeMutablePointer<SIMD4<Float>>, starts: UnsafeBufferPointer<Int>, weights: UnsafeBufferPointer<Float>,
        taps: Int, count: Int, into out: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        let weightBase = weights.baseAddress!
        for x in 0..<count {
            let pixels = row + starts[x]
            let w = weightBase + x * taps
            var sum0 = SIMD4<Float>.zero
            var sum1 = SIMD4<Float>.zero
            var k = 0
            while k + 1 < taps {
                sum0 += pixels[k] * w[k]
                sum1 += pixels[k + 1] * w[k + 1]
                k += 2
            }
            if k < taps { sum0 += pixels[k] * w[k] }
            out[x] = sum0 + sum1
        }
    }

    @inline(__always)
    private static func storeRow(_ row: UnsafeMutablePointer<SIMD4<Float>>, count: Int, alpha: Bool, into out: UnsafeMutablePointer<UInt8>) {
        let white = SIMD4<Float>(repeating: 255)
        for x in 0..<count {
            var value = PixelConversion.clamp(row[x], 0, white)
            if alpha {
                let a = value.w
                if a <= 0 {
                    value = .zero
                } else {
                    // Lanczos overshoot can leave premultiplied colour above alpha: clamp before dividing.
                    let rgb = PixelConversion.clamp(value, 0, SIMD4(repeating: a))
                    let scale = 255 / a
                    value = SIMD4(rgb.x * scale, rgb.y * scale, rgb.z * scale, a)
                }
            }
            UnsafeMutableRawPointer(out + x * 4).storeBytes(of: PixelConversion.bytes(value), as: SIMD4<UInt8>.self)
        }
    }

    /// `image` blurred by `sigma`, premultiplied (or opaque). `sigma` must be positive.
    static func blurred(_ image: Bitmap, sigma: Double) -> Bitmap {
        if sigma <= GaussianFilter.kernelSigmaLimit { return kernelBlurred(image, sigma: sigma) }
        let width = image.width, height = image.height
        let passes = GaussianFilter.Passes(sigma: sigma)
        let premultiply = image.alphaMode == .straight
        let alpha = image.alphaMode != .opaque
        var intermediate = [UInt8](repeating: 0, count: width * height * 4)
        var output = [UInt8](repeating: 0, count: width * height * 4)
        let longest = max(width, height)
        let line = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: longest * GaussianFilter.stripWidth)
        let other = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: longest * GaussianFilter.stripWidth)
        let padded = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: (longest + 2 * passes.padding) * GaussianFilter.stripWidth)
        defer { line.deallocate(); other.deallocate(); padded.deallocate() }

        // Rows in strips of `GaussianFilter.stripWidth` too: each filtered element holds one pixel of every
        // row in the strip, so the inner loops run over independent lanes and vectorise,
        // instead of waiting on one accumulator.
        image.pixels.withUnsafeBufferPointer { source in
            intermediate.withUnsafeMutableBufferPointer { middle in
                for y0 in stride(from: 0, to: height, by: GaussianFilter.stripWidth) {
                    let lanes = min(GaussianFilter.stripWidth, height - y0)
                    for lane in 0..<lanes {
                        let row = source.baseAddress! + (y0 + lane) * image.bytesPerRow
                        for x in 0..<width { line[x * lanes + lane] = GaussianFilter.load(row + x * 4, premultiply: premultiply) }
                    }
                    let result = passes.run(line, other, padded, count: width, lanes: lanes)
                    for lane in 0..<lanes {
                        let out = middle.baseAddress! + (y0 + lane) * width * 4
                        for x in 0..<width { GaussianFilter.store(result[x * lanes + lane], into: out + x * 4) }
                    }
                }
            }
        }
        intermediate.withUnsafeBufferPointer { middle in
            output.withUnsafeMutableBufferPointer { out in
                for x0 in stride(from: 0, to: width, by: GaussianFilter.stripWidth) {
                    let lanes = min(GaussianFilter.stripWidth, width - x0)
                    for y in 0..<height {
                        let row = middle.baseAddress! + (y * width + x0) * 4
                        for lane in 0..<lanes { line[y * lanes + lane] = GaussianFilter.load(row + lane * 4, premultiply: false) }
                    }
                    let result = passes.run(line, other, padded, count: height, lanes: lanes)
                    for y in 0..<height {
                        let row = out.baseAddress! + (y * width + x0) * 4
                        for lane in 0..<lanes { GaussianFilter.store(result[y * lanes + lane], into: row + lane * 4) }
                    }
                }
            }
        }
        return Bitmap(width: width, height: height, pixels: output,
                      alphaMode: alpha ? .premultiplied : .opaque, metadata: image.metadata)
    }

    /// `image` blurred by a sampled Gaussian of `sigma`, premultiplied (or opaque).
    static func kernelBlurred(_ image: Bitmap, sigma: Double) -> Bitmap {
        let width = image.width, height = image.height, rowBytes = width * 4
        let half = GaussianFilter.fixedPointHalfKernel(sigma: sigma)
        let radius = half.count - 1
        // 16 bytes of slack: the last four-pixel group of a row may read and write past it.
        let slack = 16
        var source = image.pixels
        if image.alphaMode == .straight { premultiply(&source, width: width, height: height, bytesPerRow: image.bytesPerRow) }
        var intermediate = [UInt8](repeating: 0, count: height * rowBytes + slack)
        var output = [UInt8](repeating: 0, count: height * rowBytes + slack)
        let padded = UnsafeMutablePointer<UInt8>.allocate(capacity: (width + 2 * radius) * 4 + slack)
        padded.initialize(repeating: 0, count: (width + 2 * radius) * 4 + slack)
        defer { padded.deallocate() }

        half.withUnsafeBufferPointer { half in
            source.withUnsafeBufferPointer { source in
                intermediate.withUnsafeMutableBufferPointer { middle in
                    for y in 0..<height {
                        let row = source.baseAddress! + y * image.bytesPerRow
                        // The row with its end pixels repeated `radius` times at each side.
                        (padded + radius * 4).update(from: row, count: rowBytes)
                        for i in 0..<radius {
                            (padded + i * 4).update(from: row, count: 4)
                            (padded + (radius + width + i) * 4).update(from: row + rowBytes - 4, count: 4)
                        }
                        let out = middle.baseAddress! + y * rowBytes
                        for x in stride(from: 0, to: width, by: 4) {
                            let centre = padded + (x + radius) * 4
                            var sum = widened(centre) &* half[0]
                            for k in 1...radius {
                                sum &+= (widened(centre - k * 4) &+ widened(centre + k * 4)) &* half[k]
                            }
                            store(sum, into: out + x * 4)
                        }
                    }
                }
            }
            intermediate.withUnsafeBufferPointer { middle in
                output.withUnsafeMutableBufferPointer { out in
                    let base = middle.baseAddress!
                    for y in 0..<height {
                        let centre = base + y * rowBytes
                        let target = out.baseAddress! + y * rowBytes
                        for offset in stride(from: 0, to: rowBytes, by: 16) {
                            var sum = widened(centre + offset) &* half[0]
                            for k in 1...radius {
                                // Rows beyond the edges repeat the edge row.
                                let above = base + max(y - k, 0) * rowBytes + offset
                                let below = base + min(y + k, height - 1) * rowBytes + offset
                                sum &+= (widened(above) &+ widened(below)) &* half[k]
                            }
                            store(sum, into: target + offset)
                        }
                    }
                }
            }
        }
        output.removeLast(slack)
        return Bitmap(width: width, height: height, pixels: output,
                      alphaMode: image.alphaMode == .opaque ? .opaque : .premultiplied, metadata: image.metadata)
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

    /// The old `Sharpen.process`: the unsharp mask into a third image.
    static func sharpened(_ image: Bitmap, sigma: Double, amount: Double, threshold: Int) -> Bitmap {
        let image = image.prepared
        return unsharpMasked(image, by: blurred(image, sigma: sigma), amount: Float(amount), threshold: Float(threshold))
    }

    static func unsharpMasked(_ image: Bitmap, by blurred: Bitmap, amount: Float, threshold: Float) -> Bitmap {
        let (width, height, bytesPerRow, alphaMode, pixels, metadata) = (image.width, image.height, image.bytesPerRow, image.alphaMode, image.pixels, image.metadata)
        var output = [UInt8](repeating: 0, count: width * height * 4)
        let premultiply = alphaMode == .straight
        pixels.withUnsafeBufferPointer { source in
            blurred.pixels.withUnsafeBufferPointer { blur in
                output.withUnsafeMutableBufferPointer { out in
                    for y in 0..<height {
                        let row = source.baseAddress! + y * bytesPerRow
                        // Opaque images in integers, a byte at a time in a loop the compiler
                        // vectorises (alpha stays 255: its blur is 255, so the difference is 0).
                        let vectorised = alphaMode == .opaque && amount <= 64 ? width : 0
                        if vectorised > 0 {
                            sharpenOpaqueRow(
                                row, blur.baseAddress! + y * width * 4, into: out.baseAddress! + y * width * 4,
                                count: width * 4, amount: Int32((amount * 256).rounded()), threshold: Int32(threshold)
                            )
                        }
                        for x in vectorised..<width {
                            let original = GaussianFilter.load(row + x * 4, premultiply: premultiply)
                            let soft = GaussianFilter.load(blur.baseAddress! + (y * width + x) * 4, premultiply: false)
                            let difference = original - soft
                            let magnitude = difference.replacing(with: -difference, where: difference .< 0)
                            let mask = magnitude .> SIMD4(repeating: threshold)
                            var sharp = original.replacing(with: original + difference * amount, where: mask)
                            // Alpha is kept; premultiplied colour may not exceed it.
                            sharp.w = original.w
                            let ceiling = SIMD4<Float>(repeating: original.w)
                            sharp = sharp.clamped(lowerBound: .zero, upperBound: ceiling)
                            if premultiply, original.w > 0, original.w < 255 {
                                let unscale = 255 / original.w
                                sharp = SIMD4(sharp.x * unscale, sharp.y * unscale, sharp.z * unscale, sharp.w)
                            }
                            GaussianFilter.store(sharp, into: out.baseAddress! + (y * width + x) * 4)
                        }
                    }
                }
            }
        }
        return Bitmap(width: width, height: height, pixels: output, alphaMode: alphaMode, metadata: metadata)
    }

    /// One row of an opaque image: `original + amount × (original − blurred)` where the
    /// difference exceeds `threshold`, with `amount` in 8.8 fixed point. Written as a plain loop
    /// over bytes so that it compiles to vector code; `SIMD` masks here compile to lane loops.
    @inline(__always)
    private static func sharpenOpaqueRow(
        _ original: UnsafePointer<UInt8>, _ blurred: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>,
        count: Int, amount: Int32, threshold: Int32
    ) {
        for i in 0..<count {
            // Wrapping operators: the bounds above keep every value far inside Int32, and
            // overflow checks would stop the loop from vectorising.
            let o = Int32(original[i]), difference = o &- Int32(blurred[i])
            let sharp = min(max(o &+ ((difference &* amount &+ 128) &>> 8), 0), 255)
            let magnitude = difference < 0 ? -difference : difference
            target[i] = UInt8(truncatingIfNeeded: magnitude > threshold ? sharp : o)
        }
    }
}
