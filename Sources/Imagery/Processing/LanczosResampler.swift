#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A separable Lanczos-3 resampler over 8-bit RGBA, vectorised with `SIMD4<Float>`
/// (one pixel, four channels, per vector).
///
/// The horizontal pass filters each source row once, as the vertical pass first needs it, into
/// a ring of `taps` rows of `outputWidth` (the rows one output row reads: the filter's starts
/// only grow); the vertical pass then accumulates whole rows at a time, which keeps both inner
/// loops contiguous. Beside the output, the resample holds the ring and one source row, not an
/// intermediate image: an enlargement would otherwise hold an intermediate larger than its
/// source. Straight alpha is premultiplied on load and restored on store, so transparent
/// pixels never bleed their colour into opaque neighbours. With `linearLight`, colour is
/// filtered in linear light (sRGB's curve undone on load and redone on store), which keeps a
/// fine pattern's brightness where averaging sRGB values darkens it, at some cost in time.
package enum LanczosResampler {
    /// Resamples the region `sourceRect` (in `source` pixels) of `source` to `outputSize`.
    ///
    /// With `orienting`, the source's ``Bitmap/orientation`` is applied as rows are stored, so
    /// the result is upright (the output size stays in the stored frame): the same pixels as
    /// `oriented()` afterwards, without a second image.
    package static func resample(
        _ source: Bitmap, sourceRect: SourceRect, to outputSize: PixelSize, orienting: Bool = false, linearLight: Bool = false
    ) -> Bitmap {
        let horizontal = FilterBank(
            sourceCount: source.width, outputCount: outputSize.width, origin: sourceRect.x, span: sourceRect.width
        )
        let vertical = FilterBank(
            sourceCount: source.height, outputCount: outputSize.height, origin: sourceRect.y, span: sourceRect.height
        )
        let outWidth = outputSize.width, taps = vertical.taps
        let hasAlpha = source.alphaMode != .opaque
        let premultiplyOnLoad = source.alphaMode == .straight
        let placement = RowPlacement(stored: outputSize, orientation: orienting ? source.orientation : .up)

        // Source row `y` is filtered into slot `y % taps`, once; by then the row that slot held
        // lies above every later output row's first tap.
        let ring = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: outWidth * taps)
        defer { ring.deallocate() }
        let sourceRow = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: source.width)
        defer { sourceRow.deallocate() }
        let accumulator = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: outWidth)
        defer { accumulator.deallocate() }
        var output = [UInt8](repeating: 0, count: outWidth * outputSize.height * 4)
        var nextRow = vertical.starts.first ?? 0

        source.pixels.withUnsafeBufferPointer { pixels in
            let base = UnsafeRawPointer(pixels.baseAddress!)
            horizontal.weights.withUnsafeBufferPointer { hWeights in
                horizontal.starts.withUnsafeBufferPointer { hStarts in
                    vertical.weights.withUnsafeBufferPointer { weights in
                        output.withUnsafeMutableBufferPointer { out in
                            for y in 0..<outputSize.height {
                                let start = vertical.starts[y]
                                while nextRow < start + taps {
                                    loadRow(base + nextRow * source.bytesPerRow, count: source.width, premultiply: premultiplyOnLoad, into: sourceRow)
                                    if linearLight { toLinear(sourceRow, count: source.width, premultiplied: premultiplyOnLoad) }
                                    let slot = ring + (nextRow % taps) * outWidth
                                    filterRow(sourceRow, starts: hStarts, weights: hWeights, taps: horizontal.taps, count: outWidth, into: slot)
                                    nextRow += 1
                                }
                                accumulator.initialize(repeating: .zero, count: outWidth)
                                for k in 0..<taps {
                                    let weight = weights[y * taps + k]
                                    if weight == 0 { continue }
                                    let row = ring + ((start + k) % taps) * outWidth
                                    for x in 0..<outWidth { accumulator[x] += row[x] * weight }
                                }
                                storeRow(
                                    accumulator, count: outWidth, alpha: hasAlpha, linear: linearLight, into: out.baseAddress!, placement: placement.row(y)
                                )
                            }
                        }
                    }
                }
            }
        }
        let size = placement.size
        return Bitmap(
            width: size.width, height: size.height, pixels: output,
            alphaMode: hasAlpha ? .straight : .opaque, orientation: orienting ? .up : source.orientation, metadata: source.metadata
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

    /// sRGB's values (0...255) as linear light on the same scale.
    private static let linearFromSRGB: [Float] = (0..<256).map { byte in
        let value = Float(byte) / 255
        return 255 * (value <= 0.04045 ? value / 12.92 : Float(pow(Double((value + 0.055) / 1.055), 2.4)))
    }

    /// Linear light (0...255, in 4,096 steps) as sRGB's values, not yet rounded.
    private static let srgbFromLinear: [Float] = (0..<4096).map { step in
        let value = Float(step) / 4095
        return 255 * (value <= 0.0031308 ? value * 12.92 : 1.055 * Float(pow(Double(value), 1 / 2.4)) - 0.055)
    }

    /// A loaded row's colour taken to linear light; premultiplied colour is divided by its alpha
    /// first and multiplied again after, as the curve applies to the colour itself.
    @inline(__always)
    private static func toLinear(_ row: UnsafeMutablePointer<SIMD4<Float>>, count: Int, premultiplied: Bool) {
        linearFromSRGB.withUnsafeBufferPointer { table in
            for x in 0..<count {
                var value = row[x]
                let alpha = premultiplied ? value.w / 255 : 1
                guard alpha > 0 else { continue }
                for lane in 0..<3 {
                    let byte = Int((value[lane] / alpha).rounded())
                    value[lane] = table[min(max(byte, 0), 255)] * alpha
                }
                row[x] = value
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
    private static func storeRow(
        _ row: UnsafeMutablePointer<SIMD4<Float>>, count: Int, alpha: Bool, linear: Bool, into out: UnsafeMutablePointer<UInt8>,
        placement: (start: Int, step: Int)
    ) {
        let white = SIMD4<Float>(repeating: 255)
        let curve = srgbFromLinear
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
            if linear {
                for lane in 0..<3 { value[lane] = curve[min(max(Int(value[lane] * (4095 / 255) + 0.5), 0), 4095)] }
            }
            UnsafeMutableRawPointer(out + placement.start + x * placement.step).storeBytes(of: PixelConversion.bytes(value), as: SIMD4<UInt8>.self)
        }
    }

    /// Where each stored output row's pixels go in the (possibly turned) result: the byte
    /// offset of its first pixel and the step to the next, the inverse of `Bitmap.oriented()`'s
    /// mapping.
    struct RowPlacement {
        let stored: PixelSize
        let orientation: ImageOrientation

        /// The result's size.
        var size: PixelSize {
            orientation.swapsAxes ? PixelSize(width: stored.height, height: stored.width) : stored
        }

        func row(_ y: Int) -> (start: Int, step: Int) {
            let w = stored.width, h = stored.height
            switch orientation {
            case .up: return ((y * w) * 4, 4)
            case .upMirrored: return ((y * w + w - 1) * 4, -4)
            case .down: return (((h - 1 - y) * w + w - 1) * 4, -4)
            case .downMirrored: return ((h - 1 - y) * w * 4, 4)
            case .leftMirrored: return (y * 4, h * 4)
            case .right: return ((h - 1 - y) * 4, h * 4)
            case .rightMirrored: return (((w - 1) * h + h - 1 - y) * 4, -h * 4)
            case .left: return (((w - 1) * h + y) * 4, -h * 4)
            }
        }
    }
}

extension LanczosResampler {
    /// The pixels (of 4 bytes) a resample from `source` to `output` holds besides both images:
    /// its ring of filtered rows, a source row and an accumulator, at 16 bytes a pixel.
    package static func scratchPixels(source: PixelSize, output: PixelSize) -> Int {
        let scale = Swift.max(1, Double(source.height) / Double(Swift.max(1, output.height)))
        let taps = Swift.min(source.height, Int((6 * scale).rounded(.up)) + 2)
        return 4 * (taps * output.width + source.width + output.width)
    }
}
