import Testing
@testable import ImageryCodecs
import Imagery
import ImageryTestSupport

/// HEIC and JPEG XL written: each trades bytes for fidelity with `q`, keeps alpha only where
/// there is some, and reads back through the same build's decoders.
extension ModernFormatTests {
    static let heifOut = CIRun.runs(needingTrait: "HEIF", compiled: ImageEncoder.supportedFormats.contains(.heic))
    static let jpegXLOut = CIRun.runs(needingTrait: "JPEGXL", compiled: ImageEncoder.supportedFormats.contains(.jxl))

    @Test("HEIC and JPEG XL out: a higher q is larger and closer to the source, and reads back at its size", .enabled(if: heifOut && jpegXLOut, "needs the HEIF and JPEGXL traits"), arguments: [
        ImageFormat.heic, .jxl,
    ])
    func encodesAndTradesSizeForFidelity(_ format: ImageFormat) throws {
        let photo = try Self.rocket320()
        let high = try ImageEncoder(format: format, quality: 90).encode(photo)
        let low = try ImageEncoder(format: format, quality: 30).encode(photo)
        #expect(ImageFormat(sniffing: high) == format && ImageFormat(sniffing: low) == format)
        #expect(low.count < high.count, "\(format): q30 \(low.count) bytes, q90 \(high.count)")
        let highBack = try ImageDecoder().decode(high), lowBack = try ImageDecoder().decode(low)
        #expect(highBack.width == 320 && highBack.height == 214 && highBack.alphaMode == .opaque)
        #expect(ImageComparison.psnr(highBack, photo) > ImageComparison.psnr(lowBack, photo) + 2)
        #expect(ImageComparison.psnr(highBack, photo) > 32)
    }

    @Test("HEIC and JPEG XL keep alpha where there is some; JPEG XL lossless is exact", .enabled(if: heifOut && jpegXLOut, "needs the HEIF and JPEGXL traits"), arguments: [
        ImageFormat.heic, .jxl,
    ])
    func keepAlpha(_ format: ImageFormat) throws {
        let logo = try ImageDecoder().decode(TestImages.bytes("png_pal8_trns_debianlogo_256x256.png"))
        #expect(logo.hasTransparency)
        let back = try ImageDecoder().decode(ImageEncoder(format: format, quality: 80).encode(logo))
        #expect(back.hasTransparency && back.width == 256)
        if format == .jxl {
            let exact = try ImageDecoder().decode(ImageEncoder(format: .jxl, lossless: true).encode(logo))
            #expect(exact.withStraightAlpha().pixels == logo.withStraightAlpha().pixels)
        }
    }

    @Test("q maps onto libjxl's distance as cjxl -q maps it: q90 is distance 1, q100 0.1, and it only falls as q rises", .enabled(if: jpegXLOut, "needs the JPEGXL trait"))
    func jpegXLDistances() {
        #if JPEGXL
        #expect(abs(JPEGXLEncoder.distance(quality: 90) - 1.0) < 1e-5)
        #expect(abs(JPEGXLEncoder.distance(quality: 100) - 0.1) < 1e-5)
        #expect(abs(JPEGXLEncoder.distance(quality: 30) - 6.4) < 1e-4)
        #expect(abs(JPEGXLEncoder.distance(quality: 1) - 23.8677) < 1e-3)
        let distances = (1...100).map(JPEGXLEncoder.distance(quality:))
        #expect(zip(distances, distances.dropFirst()).allSatisfy { $0 > $1 })
        #expect(JPEGXLEncoder.distance(quality: 0) == JPEGXLEncoder.distance(quality: 1))
        #endif
    }

    @Test("The JPEG XL effort reaches libjxl, within 1...9", .enabled(if: jpegXLOut, "needs the JPEGXL trait"))
    func jpegXLEffortReachesTheEncoder() throws {
        let photo = try Self.rocket320()
        var encoder = try ImageEncoder(format: .jxl, quality: 77)
        #expect(encoder.jxlEffort == 4)
        let quick = try encoder.encode(photo)
        encoder.jxlEffort = 7
        #expect(try encoder.encode(photo) != quick)
        encoder.jxlEffort = 42
        #expect(encoder.jxlEffort == 9)
    }

    @Test("Autoquality searches HEIC and JPEG XL too, within their range", .enabled(if: heifOut && jpegXLOut, "needs the HEIF and JPEGXL traits"), arguments: [
        ImageFormat.heic, .jxl,
    ])
    func autoQualitySearchesThem(_ format: ImageFormat) throws {
        let photo = try Self.rocket320()
        let chosen = try ImageEncoder(format: format).encode(photo, choosingQualityFor: QualityTarget(.dssim(0.01, allowedError: 0.002), qualities: 30...95))
        #expect((30...95).contains(chosen.quality) && chosen.encodes <= 6)
        let measured = StructuralSimilarity.Reference(photo).dssim(try ImageDecoder().decode(chosen.bytes))
        #expect(abs(measured - (chosen.dssim ?? -1)) < 1e-9)
        #expect(measured <= 0.012 || chosen.quality == 95, "\(format): q\(chosen.quality) at DSSIM \(measured)")
    }
}
