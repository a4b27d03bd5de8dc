import Foundation
import Testing
import Imagery
import ImageryCodecs

@Suite struct AlphaAndColorTests {
    @Test func paletteTransparencySurvivesDecodeResizeAndPNGRoundTrip() throws {
        // Given the Debian logo (palette + tRNS), whose corners are transparent and swirl opaque.
        let logo = try TestImages.decodePNG("png_pal8_trns_debianlogo_256x256.png")
        #expect(logo.alphaMode == .straight)
        #expect(logo.pixel(x: 0, y: 0).alpha == 0)
        #expect(logo.hasTransparency)
        // When thumbnailed and round-tripped through PNG.
        let thumbnail = try Thumbnailer(resize: .fit(width: 64, height: 64)).thumbnail(from: TestImages.bytes("png_pal8_trns_debianlogo_256x256.png"))
        let png = try ImageEncoder(format: .png).encode(thumbnail)
        let back = try ImageDecoder().decode(png)
        // Then transparency is still there, and PNG is lossless.
        #expect(back.pixel(x: 0, y: 0).alpha == 0)
        #expect(back.hasTransparency)
        #expect(back.pixels == thumbnail.pixels)
    }

    @Test func rgbaPNGKeepsPartialAlpha() throws {
        let logo = try TestImages.decodePNG("png_rgba_semitransparent_arc_2140x1200.png")
        let alphas = Set(stride(from: 3, to: logo.pixels.count, by: 4).map { logo.pixels[$0] })
        #expect(alphas.contains(0) && (alphas.max() ?? 0) > 100)
        #expect(alphas.count > 100, "the arc fades through many alpha levels")
    }

    @Test func gifPalette() throws {
        let gif = try ImageDecoder().decode(TestImages.bytes("gif_static_objects_256x171.gif"))
        #expect(gif.width == 256 && gif.height == 171)
        #expect(Set(stride(from: 0, to: gif.pixels.count, by: 4).map { gif.pixels[$0] }).count > 1)
    }

    /// The GIF was made from the PNG (MANIFEST.tsv): every pixel whose alpha is under 128 there
    /// is the transparent index here.
    @Test func gifTransparentIndexIsTransparent() throws {
        let gif = try ImageDecoder().decode(TestImages.bytes("gif_trns_debianlogo_256x256.gif")).withStraightAlpha()
        let png = try TestImages.decodePNG("png_pal8_trns_debianlogo_256x256.png").withStraightAlpha()
        try #require(gif.width == png.width && gif.height == png.height)
        #expect(gif.hasTransparency)
        var transparent = 0, mismatched = 0
        for y in 0..<gif.height {
            for x in 0..<gif.width {
                let alpha = gif.pixel(x: x, y: y).alpha
                #expect(alpha == 0 || alpha == 255)
                if alpha == 0 { transparent += 1 }
                if (alpha == 0) != (png.pixel(x: x, y: y).alpha < 128) { mismatched += 1 }
            }
        }
        #expect(transparent == 58_420)   // counted by the script that made the file
        #expect(mismatched == 0)
    }

    /// The CMYK file was separated from an RGB photo (ImageMagick, Adobe-inverted CMYK).
    /// The reference is that RGB original, reduced by Pillow: independent of Imagery. A wrong
    /// polarity or channel order gives a photographic negative or swapped hues, far below the bound.
    @Test func cmykLooksLikeTheOriginalPhoto() throws {
        let reference = try TestImages.decodePNG("reference_cmyk_yellowflower_original_160x100.png")
        let thumbnail = try Thumbnailer(resize: .fit(width: 160, height: 100))
            .thumbnail(from: TestImages.bytes("jpeg_cmyk_yellowflower_2560x1600.jpg"))
        #expect(thumbnail.width == 160 && thumbnail.height == 100)
        let psnr = ImageComparison.psnr(thumbnail, reference)
        // Measured 50.9 dB: ImageMagick separated with the naive formula, so its inverse recovers the
        // photo up to JPEG loss. A wrong inversion or channel order scores under 20 dB.
        #expect(psnr > 45, "PSNR \(psnr) dB against the RGB original")
        let inverted = thumbnail.pixels.enumerated().map { $0.offset % 4 == 3 ? $0.element : 255 - $0.element }
        let negative = Bitmap(width: thumbnail.width, height: thumbnail.height, pixels: inverted, alphaMode: .opaque)
        #expect(ImageComparison.psnr(negative, reference) < 12, "the check can tell a negative apart (1.7 dB measured)")
    }

    /// rocket.jpg carries an Adobe RGB (1998) profile. The reference was converted to sRGB by
    /// LittleCMS (Pillow's ImageCms) and reduced by Pillow.
    @Test func adobeRGBIsConvertedToSRGB() throws {
        let reference = try TestImages.decodePNG("reference_rocket_lcms_srgb_160x107.png")
        let bytes = try TestImages.bytes("jpeg_small_base_rocket_640x427.jpg")
        let converted = try Thumbnailer(resize: .fit(width: 160, height: 160)).thumbnail(from: bytes)
        var options = DecodingOptions()
        options.convertsToSRGB = false
        let unconverted = try Thumbnailer(resize: .fit(width: 160, height: 160), decodingOptions: options).thumbnail(from: bytes)

        #expect(converted.metadata.colorProfile == ColorProfileInfo(name: "Adobe RGB (1998)", convertedToSRGB: true))
        let withConversion = ImageComparison.psnr(converted, reference)
        let withoutConversion = ImageComparison.psnr(unconverted, reference)
        // Measured 49.7 dB converted and 30.0 dB unconverted.
        #expect(withConversion > 45, "converted: \(withConversion) dB")
        #expect(withConversion > withoutConversion + 15, "conversion moves toward LittleCMS: \(withConversion) vs \(withoutConversion) dB")
    }

    @Test(.enabled(if: TestImages.corpusIsAvailable, "needs ../shared/corpus"))
    func srgbProfileIsRecognisedAndLeftAlone() throws {
        let corpus = try #require(TestImages.corpus)
        let bytes = [UInt8](try Data(contentsOf: corpus.appendingPathComponent("jpeg_med_base_icc_hubble_1000x872.jpg")))
        let bitmap = try ImageDecoder().decode(bytes)
        #expect(bitmap.metadata.colorProfile?.name == "sRGB IEC61966-2.1")
        #expect(bitmap.metadata.colorProfile?.convertedToSRGB == false)
    }
}
