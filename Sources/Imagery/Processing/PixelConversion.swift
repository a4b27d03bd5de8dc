/// Pixel conversions written per lane: Swift's generic SIMD integer↔float initialisers are
/// not specialised and cost more than the filtering around them.
enum PixelConversion {
    @inline(__always)
    static func float(_ pixel: SIMD4<UInt8>) -> SIMD4<Float> {
        SIMD4(Float(pixel.x), Float(pixel.y), Float(pixel.z), Float(pixel.w))
    }

    /// Clamps each lane to `low...high` (lane-wise scalar code: the generic `clamped` is not inlined).
    @inline(__always)
    static func clamp(_ value: SIMD4<Float>, _ low: Float, _ high: SIMD4<Float>) -> SIMD4<Float> {
        SIMD4(min(max(value.x, low), high.x), min(max(value.y, low), high.y),
              min(max(value.z, low), high.z), min(max(value.w, low), high.w))
    }

    /// Rounds to nearest; `value` must already be within 0...255.
    @inline(__always)
    static func bytes(_ value: SIMD4<Float>) -> SIMD4<UInt8> {
        let rounded = value + 0.5
        return SIMD4(UInt8(rounded.x), UInt8(rounded.y), UInt8(rounded.z), UInt8(rounded.w))
    }
}
