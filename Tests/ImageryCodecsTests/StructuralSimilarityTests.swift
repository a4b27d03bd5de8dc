@testable import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// SSIM against scikit-image 0.26's `structural_similarity` on the same pixels: BT.601 luma of
/// the PNGs below, `gaussian_weights=True, sigma=1.5, use_sample_covariance=False,
/// data_range=255` (printed by scripts/make-ssim-references.py, which writes these files).
@Suite("Structural similarity")
struct StructuralSimilarityTests {
    static let original = try! ImageDecoder().decode(Fixtures.bytes("reference_ssim_rocket_200x134.png"))

    @Test("SSIM equals scikit-image's on the same pixels", arguments: [
        ("reference_ssim_rocket_jpeg_q30_200x134.png", 0.9160861830821856),
        ("reference_ssim_rocket_blur_200x134.png", 0.8843135353706936),
        ("reference_ssim_rocket_200x134.png", 1.0),
    ])
    func matchesScikitImage(_ name: String, _ expected: Double) throws {
        let candidate = try ImageDecoder().decode(Fixtures.bytes(name))
        let ssim = StructuralSimilarity.ssim(Self.original, candidate)
        #expect(abs(ssim - expected) < 2e-5, "\(name): \(ssim) against scikit-image's \(expected)")
        #expect(abs(StructuralSimilarity.Reference(Self.original).dssim(candidate) - (1 - expected) / 2) < 1e-5)
    }

    /// The window applied the plain way: every output a double sum over the 11 × 11 window,
    /// edges mirrored as scipy's `reflect` mode does.
    static func windowed(_ plane: [Float], width: Int, height: Int) -> [Float] {
        let weights = StructuralSimilarity.weights, radius = StructuralSimilarity.radius
        func mirrored(_ index: Int, _ count: Int) -> Int {
            var index = index
            while index < 0 || index >= count { index = index < 0 ? -index - 1 : 2 * count - index - 1 }
            return index
        }
        return (0..<(width * height)).map { at in
            let (row, column) = at.quotientAndRemainder(dividingBy: width)
            var sum: Double = 0
            for i in 0...(2 * radius) {
                for j in 0...(2 * radius) {
                    sum += Double(weights[i] * weights[j]) * Double(plane[mirrored(row - radius + i, height) * width + mirrored(column - radius + j, width)])
                }
            }
            return Float(sum)
        }
    }

    @Test("The window on SIMD lanes equals the plain double sum, on planes whose widths leave a tail of columns and whose edges bounce", arguments: [
        (21, 13), (8, 8), (13, 3), (3, 17), (37, 12),
    ])
    func windowMatchesThePlainSum(_ width: Int, _ height: Int) {
        var generator = SystemRandomNumberGenerator()
        let plane = (0..<(width * height)).map { _ in Float(Int.random(in: 0...255, using: &generator)) }
        let fast = StructuralSimilarity.filtered(plane, width: width, height: height)
        let plain = Self.windowed(plane, width: width, height: height)
        let worst = zip(fast, plain).map { abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-3, "\(width)x\(height): off by \(worst)")
    }

    @Test("A worse copy scores lower, and SSIM is symmetric")
    func ordering() throws {
        let q30 = try ImageDecoder().decode(Fixtures.bytes("reference_ssim_rocket_jpeg_q30_200x134.png"))
        let q90 = try ImageDecoder().decode(ImageEncoder(format: .jpeg, quality: 90).encode(Self.original))
        #expect(StructuralSimilarity.ssim(Self.original, q90) > StructuralSimilarity.ssim(Self.original, q30))
        #expect(abs(StructuralSimilarity.ssim(q30, Self.original) - StructuralSimilarity.ssim(Self.original, q30)) < 1e-6)
    }
}
