import Foundation
import Imagery
import ImageryCodecs
import Testing

/// Each built-in processor against a reference made once by libvips or Pillow
/// (`scripts/make-processing-references.py`): geometry exactly, filters by PSNR.
@Suite("Processors against libvips and Pillow")
struct ProcessingReferenceTests {
    let rocket: Bitmap
    let logo: Bitmap

    init() throws {
        rocket = try TestImages.decodePNG("reference_processing_rocket_120x80.png")
        logo = try TestImages.decodePNG("reference_processing_logo_100x100.png")
    }

    private func expectIdentical(_ result: Bitmap, _ reference: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try TestImages.decodePNG(reference)
        #expect(result.width == expected.width && result.height == expected.height, sourceLocation: sourceLocation)
        #expect(result.flattened().packedPixels == expected.flattened().packedPixels, "\(reference) differs", sourceLocation: sourceLocation)
    }

    @Test("Crops match vips smartcrop centre, low and high exactly", arguments: [
        (Gravity.center, "centre"), (.northWest, "low"), (.southEast, "high"),
    ])
    func crops(gravity: Gravity, name: String) throws {
        try expectIdentical(ImageProcessors.Crop(width: 61, height: 47, gravity: gravity).process(rocket),
                            "reference_processing_crop_\(name)_61x47.png")
    }

    @Test("Rotations match vips rot exactly", arguments: [(90, "d90"), (180, "d180"), (270, "d270"), (-90, "d270"), (450, "d90")])
    func rotations(degrees: Int, name: String) throws {
        try expectIdentical(ImageProcessors.Rotate(degrees: degrees).process(rocket), "reference_processing_rot_\(name).png")
    }

    @Test("Flips match vips flip exactly", arguments: [ImageProcessors.Flip.Axis.horizontal, .vertical])
    func flips(axis: ImageProcessors.Flip.Axis) throws {
        try expectIdentical(ImageProcessors.Flip(axis).process(rocket), "reference_processing_flip_\(axis.rawValue).png")
    }

    @Test("Pads match vips gravity exactly", arguments: [(Gravity.center, "centre"), (.northEast, "northeast")])
    func pads(gravity: Gravity, name: String) throws {
        let red = RGBA(red: 255, green: 0, blue: 0)
        try expectIdentical(ImageProcessors.Pad(width: 151, height: 101, color: red, gravity: gravity).process(rocket),
                            "reference_processing_pad_\(name)_151x101.png")
    }

    @Test("Flattening onto white is within one level of vips flatten")
    func flatten() throws {
        let result = try ImageProcessors.Background(color: .white).process(logo)
        let expected = try TestImages.decodePNG("reference_processing_flatten_white.png")
        #expect(result.alphaMode == .opaque)
        // zip stops at the shorter: the sizes must match for the comparison to cover every pixel.
        try #require(result.width == expected.width && result.height == expected.height)
        try #require(result.packedPixels.count == expected.packedPixels.count)
        let largest = zip(result.packedPixels, expected.packedPixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(largest <= 1)
    }

    // Each bound is the PSNR measured on 2026-11-22 less about 2 dB. Blur against vips:
    // 49.8 dB at sigma 1 and 2 (sampled kernel; the gap is the 8-bit rounding between the
    // passes), 48.7 dB at sigma 6 (three extended boxes, whose bell differs from a Gaussian
    // in the tails). Sharpen against Pillow: 48.4 dB (Pillow blurs with boxes). Circle alpha
    // against Pillow's 8x-supersampled ellipse: 35.9 dB (4x4 samples here; Pillow's ellipse
    // box includes its end pixel, so its circle is 1/8 px larger).
    @Test("Gaussian blur is close to vips gaussblur (float precision)", arguments: [(1.0, 47.5), (2.0, 47.5), (6.0, 46.5)])
    func blur(sigma: Double, bound: Double) throws {
        let result = try ImageProcessors.GaussianBlur(sigma: sigma).process(rocket)
        let expected = try TestImages.decodePNG("reference_processing_blur_\(Int(sigma)).png")
        let psnr = ImageComparison.psnr(result, expected)
        #expect(psnr > bound, "sigma \(sigma): \(psnr) dB")
    }

    @Test("Sharpen is close to Pillow's UnsharpMask")
    func sharpen() throws {
        let result = try ImageProcessors.Sharpen(sigma: 1, amount: 1).process(rocket)
        let expected = try TestImages.decodePNG("reference_processing_sharpen_1_1.png")
        let psnr = ImageComparison.psnr(result, expected)
        #expect(psnr > 46, "\(psnr) dB")
        #expect(ImageComparison.psnr(rocket, expected) < psnr - 5, "the reference should be far from the input")
    }

    @Test("Circle alpha is close to an 8x-supersampled Pillow mask")
    func circle() throws {
        let result = try ImageProcessors.Circle().process(rocket)
        let expected = try TestImages.decodePNG("reference_processing_circle_80x80.png")
        try #require(result.width == 80 && result.height == 80 && expected.width == 80 && expected.height == 80)
        let alpha = { (bitmap: Bitmap) in stride(from: 3, to: bitmap.packedPixels.count, by: 4).map { Int(bitmap.packedPixels[$0]) } }
        let (a, b) = (alpha(result), alpha(expected))
        let mse = Double(zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +)) / Double(a.count)
        let psnr = 10 * log10(255 * 255 / max(mse, 1e-9))
        #expect(psnr > 34, "alpha PSNR \(psnr) dB")
        // The colour inside is the centre square, untouched.
        #expect(result.pixel(x: 40, y: 40) == rocket.pixel(x: 60, y: 40))
    }
}
