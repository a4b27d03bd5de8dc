import Imagery
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

    @Test("A worse copy scores lower, and SSIM is symmetric")
    func ordering() throws {
        let q30 = try ImageDecoder().decode(Fixtures.bytes("reference_ssim_rocket_jpeg_q30_200x134.png"))
        let q90 = try ImageDecoder().decode(ImageEncoder(format: .jpeg, quality: 90).encode(Self.original))
        #expect(StructuralSimilarity.ssim(Self.original, q90) > StructuralSimilarity.ssim(Self.original, q30))
        #expect(abs(StructuralSimilarity.ssim(q30, Self.original) - StructuralSimilarity.ssim(Self.original, q30)) < 1e-6)
    }
}
