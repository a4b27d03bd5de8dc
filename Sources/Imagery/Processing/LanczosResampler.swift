/// A separable Lanczos-3 resampler over 8-bit RGBA, vectorised with `SIMD4<Float>`
/// (one pixel, four channels, per vector).
///
/// The horizontal pass runs first, into a `Float` buffer of `outputWidth × rows-needed`;
/// the vertical pass then accumulates whole rows at a time, which keeps both inner loops
/// contiguous. Straight alpha is premultiplied on load and restored on store, so
/// transparent pixels never bleed their colour into opaque neighbours.
package enum LanczosResampler {
    /// Resamples the region `sourceRect` (in `source` pixels) of `source` to `outputSize`.
    package static func resample(_ source: Bitmap, sourceRect: SourceRect, to outputSize: PixelSize) -> Bitmap {
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
}
