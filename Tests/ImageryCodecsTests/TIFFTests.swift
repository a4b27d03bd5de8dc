import Foundation
import Testing
@testable import ImageryCodecs
import Imagery
import ImageryTestSupport

/// TIFF through libtiff: every layout the bundled files cover (each file's size, format and
/// orientation is also checked by `DecodingTests`), the limits, and TIFF output.
/// Whether the TIFF tests run: with the trait, and in .ci/run's trait pass.
private let tiffEnabled = CIRun.runs(needingTrait: "TIFF", compiled: ImageDecoder.supportedFormats.contains(.tiff))

@Suite(.enabled(if: tiffEnabled, "needs the TIFF trait"))
struct TIFFTests {
    static func decode(_ name: String, options: DecodingOptions = DecodingOptions()) throws -> Bitmap {
        try ImageDecoder().decode(TestImages.bytes(name), options: options)
    }

    @Test("Lossless layouts of one image decode to the same pixels: LZW strips, LZW tiles with partial edge tiles, planar, the first of two pages")
    func losslessLayoutsAgree() throws {
        let strips = try Self.decode("tiff_lzw_strips_rocket_100x67.tif")
        #expect(strips.width == 100 && strips.height == 67 && strips.alphaMode == .opaque)
        for name in ["tiff_lzw_tiles_rocket_100x67.tif", "tiff_none_planar_rocket_100x67.tif", "tiff_multipage_rocket_100x67.tif"] {
            let other = try Self.decode(name)
            #expect(other.pixels == strips.pixels, "\(name)")
        }
        // The source photo, reduced by Imagery instead of ImageMagick: a check on what the bytes mean.
        let photo = try Thumbnailer(resize: .fit(width: 100, height: 67)).thumbnail(from: TestImages.bytes("jpeg_small_base_rocket_640x427.jpg"))
        #expect(ImageComparison.psnr(strips, photo) > 28)
    }

    @Test func jpegCompressedYCbCrIsCloseToTheLosslessCopy() throws {
        let jpeg = try Self.decode("tiff_jpeg_ycbcr_rocket_100x67.tif")
        let lossless = try Self.decode("tiff_lzw_strips_rocket_100x67.tif")
        #expect(ImageComparison.psnr(jpeg, lossless) > 30)
    }

    @Test("CCITT G3 and G4 hold the same bilevel picture: only black and white")
    func ccittFax() throws {
        let g3 = try Self.decode("tiff_g3_bilevel_rocket_100x67.tif"), g4 = try Self.decode("tiff_g4_bilevel_rocket_100x67.tif")
        #expect(g3.pixels == g4.pixels)
        let levels = Set(g4.pixels.enumerated().filter { $0.offset % 4 != 3 }.map(\.element))
        #expect(levels == [0, 255])
    }

    @Test("16-bit Deflate, 8-bit grey PackBits and a palette match their sources reduced by Imagery", arguments: [
        ("tiff_deflate_rgb16_chelsea_75x50.tif", "png16_rgb_chelsea_451x300.png", 30.0),
        ("tiff_packbits_gray_pier_80x50.tif", "jpeg_med_gray_pier_2560x1600.jpg", 30.0),
        ("tiff_palette_debianlogo_48x48.tif", "png_pal8_trns_debianlogo_256x256.png", 22.0),
    ])
    func matchesItsSource(tiff: String, source: String, minimum: Double) throws {
        let decoded = try Self.decode(tiff)
        let reduced = try Thumbnailer(resize: .fit(width: decoded.width, height: decoded.height)).thumbnail(from: TestImages.bytes(source))
        let psnr = ImageComparison.psnr(decoded, reduced)
        #expect(psnr > minimum, "\(tiff): \(psnr) dB")
    }

    @Test("CMYK is separated back to the RGB photo it came from (the naive inverse, as for JPEG)")
    func cmyk() throws {
        let decoded = try Self.decode("tiff_cmyk_yellowflower_80x50.tif")
        let reference = try Thumbnailer(resize: .fit(width: 80, height: 50)).thumbnail(from: TestImages.bytes("reference_cmyk_yellowflower_original_160x100.png"))
        #expect(ImageComparison.psnr(decoded, reference) > 30)
    }

    @Test("Associated and unassociated alpha decode to the same straight pixels")
    func alpha() throws {
        let straight = try Self.decode("tiff_rgba_unassociated_debianlogo_64x64.tif")
        let premultiplied = try Self.decode("tiff_rgba_associated_debianlogo_64x64.tif")
        #expect(straight.alphaMode == .straight && premultiplied.alphaMode == .straight)
        #expect(straight.hasTransparency)
        var largest = 0
        for index in stride(from: 0, to: straight.pixels.count, by: 4) {
            let alpha = Int(straight.pixels[index + 3])
            #expect(alpha == Int(premultiplied.pixels[index + 3]))
            // Compared premultiplied: colour under a low alpha is stored with fewer levels.
            for channel in 0..<3 {
                let a = Int(straight.pixels[index + channel]) * alpha / 255, b = Int(premultiplied.pixels[index + channel]) * alpha / 255
                largest = max(largest, abs(a - b))
            }
        }
        #expect(largest <= 2)
    }

    @Test("The orientation tag is applied as EXIF's is, after any resize")
    func orientation() throws {
        var stored = DecodingOptions()
        stored.appliesOrientation = false
        let raw = try Self.decode("tiff_orient6_aqua_80x50.tif", options: stored)
        #expect(raw.width == 80 && raw.height == 50 && raw.orientation == .right)
        let upright = try Self.decode("tiff_orient6_aqua_80x50.tif")
        #expect(upright.width == 50 && upright.height == 80 && upright.metadata.sourceOrientation == .right)
        let thumbnail = try Thumbnailer(resize: .fit(width: 40, height: 40)).thumbnail(from: TestImages.bytes("tiff_orient6_aqua_80x50.tif"))
        #expect(thumbnail.width == 25 && thumbnail.height == 40)
    }

    @Test("An Adobe RGB profile is converted to sRGB, as for JPEG")
    func iccProfile() throws {
        let decoded = try Self.decode("tiff_lzw_icc_rocket_160x107.tif")
        #expect(decoded.metadata.colorProfile == ColorProfileInfo(name: "Adobe RGB (1998)", convertedToSRGB: true))
        let reference = try TestImages.decodePNG("reference_rocket_lcms_srgb_160x107.png")
        #expect(ImageComparison.psnr(decoded, reference) > 30)
    }

    @Test("A draft is box-reduced as rows arrive, from strips and from tiles alike")
    func draft() throws {
        var options = DecodingOptions()
        options.draft = .fit(width: 25, height: 25)
        for name in ["tiff_lzw_strips_rocket_100x67.tif", "tiff_lzw_tiles_rocket_100x67.tif"] {
            let draft = try Self.decode(name, options: options)
            #expect(draft.width == 34 && draft.height == 23, "\(name)")
            let third: Double = 1.0 / 3
            #expect(draft.metadata.decodeScale == third)
            #expect(draft.metadata.originalSize == PixelSize(width: 100, height: 67))
        }
    }

    // MARK: Hostile files

    @Test("A header claiming 60,000 x 60,000 is refused before anything is allocated")
    func hugeHeader() throws {
        let bytes = TIFFBuilder.header(width: 60_000, height: 60_000)
        #expect(ImageHeader.size(of: bytes) == PixelSize(width: 60_000, height: 60_000))
        #expect(throws: ImageError.tooLarge(width: 60_000, height: 60_000, limit: DecodingOptions().maximumPixelCount)) {
            try ImageDecoder().decode(bytes)
        }
    }

    @Test("A file of 10,000 pages decodes its first page; the rest are never read")
    func tenThousandPages() throws {
        let bytes = TIFFBuilder.pages(10_000)
        let first = try ImageDecoder().decode(bytes)
        #expect(first.width == 2 && first.height == 2 && first.pixel(x: 1, y: 1) == RGBA(red: 200, green: 100, blue: 50))
    }

    @Test("Strips that claim more than the pixel limit can need are refused by libtiff's allocation limit")
    func allocationLimit() throws {
        var options = DecodingOptions()
        options.maximumPixelCount = 1_000
        #if TIFF
        #expect(TIFFDecoder.allocationLimit(for: options) == 16 << 20)
        #expect(TIFFDecoder.allocationLimit(for: DecodingOptions()) == 256 << 20)
        #endif
        // One strip of 30 x 30 declared 1 GiB long.
        let bytes = TIFFBuilder.header(width: 30, height: 30, stripBytes: 1 << 30)
        #expect(throws: ImageError.self) { try ImageDecoder().decode(bytes, options: options) }
    }

    @Test("Truncated files fail typed under the strict policy", arguments: [0.2, 0.5, 0.8, 0.95])
    func truncated(fraction: Double) throws {
        for name in ["tiff_lzw_strips_rocket_100x67.tif", "tiff_lzw_icc_rocket_160x107.tif"] {
            let bytes = try TestImages.bytes(name)
            let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
            #expect("\(name) cut at \(fraction)", performing: { try ImageDecoder().decode(cut) }, throws: { error in
                switch error as? ImageError {
                case .truncated(.tiff, _)?, .corrupt(.tiff, _)?: true
                default: false
                }
            })
        }
    }

    // MARK: Output

    @Test("TIFF output is lossless in every compression, LZW by default, and keeps alpha only where there is some")
    func encoding() throws {
        let photo = try Self.decode("tiff_lzw_strips_rocket_100x67.tif")
        var encoder = try ImageEncoder(format: .tiff)
        #expect(encoder.tiffCompression == .lzw)
        var sizes: [TIFFCompression: Int] = [:]
        for compression in TIFFCompression.allCases {
            encoder.tiffCompression = compression
            let bytes = try encoder.encode(photo)
            sizes[compression] = bytes.count
            #expect(ImageFormat(sniffing: bytes) == .tiff)
            let again = try ImageDecoder().decode(bytes)
            #expect(again.pixels == photo.pixels && again.alphaMode == .opaque, "\(compression)")
        }
        let stored = sizes[.none] ?? 0
        #expect((sizes[.lzw] ?? .max) < stored)
        #expect((sizes[.deflate] ?? .max) < stored)

        let logo = try Self.decode("tiff_rgba_unassociated_debianlogo_64x64.tif")
        let again = try ImageDecoder().decode(try ImageEncoder(format: .tiff).encode(logo))
        #expect(again.alphaMode == .straight && again.pixels == logo.pixels)
    }
}
