import Foundation
import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// BMP, ICO and CUR, read and written in Swift with no system library: every variant against
/// ImageMagick's own decode of the same file, and what we write read back.
@Suite("BMP and ICO")
struct BMPAndICOTests {
    static let files = [
        "bmp_24_rocket_64x43.bmp", "bmp_pal8_rocket_64x43.bmp", "bmp_rle8_rocket_64x43.bmp", "bmp_pal4_rocket_64x43.bmp",
        "bmp_pal1_rocket_64x43.bmp", "bmp_565_rocket_64x43.bmp", "bmp_555_rocket_64x43.bmp", "bmp_32_alpha_debianlogo_48x48.bmp",
        "bmp_core_rocket_64x43.bmp", "bmp_24_topdown_rocket_64x43.bmp", "bmp_32_zeroalpha_rocket_64x43.bmp", "bmp_rle4_rocket_64x43.bmp",
        "cur_bmp_debianlogo_32x32.cur", "ico_png_bmp_debianlogo_48x48.ico",
    ]

    /// The largest difference of any channel of any pixel, and where; alpha only where `alpha`.
    static func largestDifference(_ a: Bitmap, _ b: Bitmap, alpha: Bool = true) -> Int {
        var largest = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                // Where both are transparent, the colour underneath does not show.
                if p.alpha == 0, q.alpha == 0 { continue }
                let difference = max(abs(Int(p.red) - Int(q.red)), abs(Int(p.green) - Int(q.green)), abs(Int(p.blue) - Int(q.blue)), alpha ? abs(Int(p.alpha) - Int(q.alpha)) : 0)
                largest = max(largest, difference)
            }
        }
        return largest
    }

    @Test("Each variant decodes as ImageMagick decodes it (16-bit channels within rounding)", arguments: files)
    func decodesAsImageMagick(_ name: String) throws {
        let image = try ImageDecoder().decode(Fixtures.bytes(name))
        // ImageMagick writes a V5 header's colour space into the PNG as a profile; the pixels
        // themselves are what is compared.
        var asStored = DecodingOptions()
        asStored.convertsToSRGB = false
        let reference = try ImageDecoder().decode(Fixtures.bytes("reference_" + name.split(separator: ".")[0] + ".png"), options: asStored)
        #expect((image.width, image.height) == (reference.width, reference.height))
        // ImageMagick reads a 32-bit BI_RGB image's zero fourth bytes as alpha; browsers, and this
        // decoder, as "no alpha": the colours are compared there.
        let zeroAlpha = name.contains("zeroalpha")
        #expect(Self.largestDifference(image, reference, alpha: !zeroAlpha) <= (name.contains("5") ? 4 : 0), "\(name)")
        #expect(image.metadata.format == (name.hasSuffix(".bmp") ? .bmp : .ico))
    }

    @Test("Alpha is what the file says: bit-field alpha and AND masks are transparent, a zero fourth byte is opaque")
    func alpha() throws {
        #expect(try ImageDecoder().decode(Fixtures.bytes("bmp_32_alpha_debianlogo_48x48.bmp")).hasTransparency)
        #expect(try ImageDecoder().decode(Fixtures.bytes("cur_bmp_debianlogo_32x32.cur")).hasTransparency)
        let opaque = try ImageDecoder().decode(Fixtures.bytes("bmp_32_zeroalpha_rocket_64x43.bmp"))
        #expect(opaque.alphaMode == .opaque || !opaque.hasTransparency)
    }

    @Test("An icon gives its largest image")
    func largestEntry() throws {
        let icon = try ImageDecoder().decode(Fixtures.bytes("ico_png_bmp_debianlogo_48x48.ico"))
        #expect((icon.width, icon.height) == (48, 48))
    }

    @Test("A header that lies about its size is refused from the header, before its rows are allocated")
    func lyingHeader() throws {
        let bytes = Fixtures.bytes("bmp_lies_claims_30000x30000.bmp")
        #expect(throws: ImageError.tooLarge(width: 30000, height: 30000, limit: 100_000_000)) { try ImageDecoder().decode(bytes) }
        var options = DecodingOptions()
        options.maximumPixelCount = 1_000_000_000
        #expect(throws: ImageError.truncated(.bmp, detail: "the pixel data holds 0 of 30000 rows")) { try ImageDecoder().decode(bytes, options: options) }
    }

    @Test("Cut-off pixel data is refused by the strict policy and filled with grey by the lenient one, saying so")
    func truncated() throws {
        let bytes = Array(Fixtures.bytes("bmp_24_rocket_64x43.bmp").prefix(4000))
        #expect(throws: ImageError.self) { try ImageDecoder().decode(bytes) }
        var options = DecodingOptions()
        options.policy = .lenient
        let image = try ImageDecoder().decode(bytes, options: options)
        #expect((image.width, image.height) == (64, 43))
        #expect(image.metadata.warnings == ["the pixel data holds 20 of 43 rows; the rest is grey"])
        let rle = Array(Fixtures.bytes("bmp_rle8_rocket_64x43.bmp").prefix(3000))
        #expect(throws: ImageError.self) { try ImageDecoder().decode(rle) }
    }

    @Test("Seeded mutations of every variant decode or fail with a typed error, never a crash")
    func mutations() throws {
        var generator = SplitMix64(state: 33)
        for name in Self.files {
            let original = Fixtures.bytes(name)
            for _ in 0..<200 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...8, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                _ = try? ImageDecoder().decode(bytes)
            }
        }
    }

    @Test("What we write as BMP reads back pixel for pixel: 24-bit when opaque, 32-bit with its alpha")
    func bmpRoundTrip() throws {
        for name in ["jpeg_small_base_rocket_640x427.jpg", "png_pal8_trns_debianlogo_256x256.png"] {
            let source = try ImageDecoder().decode(Fixtures.bytes(name))
            let written = try ImageEncoder(format: .bmp).encode(source)
            #expect(ImageFormat(sniffing: written) == .bmp)
            let read = try ImageDecoder().decode(written)
            #expect(Self.largestDifference(read, source) == 0, "\(name)")
            #expect(read.hasTransparency == source.hasTransparency)
        }
    }

    @Test("What we write as ICO is PNG in an icon, scaled to fit 256 x 256")
    func icoOut() throws {
        let logo = try ImageDecoder().decode(Fixtures.bytes("png_rgba_semitransparent_arc_2140x1200.png"))
        let icon = try ImageEncoder(format: .ico).encode(logo)
        #expect(ImageFormat(sniffing: icon) == .ico)
        #expect(Array(icon[22..<30]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let read = try ImageDecoder().decode(icon)
        #expect(read.width == 256 && read.height == 144)
        #expect(read.hasTransparency == logo.hasTransparency)
        let small = try ImageDecoder().decode(Fixtures.bytes("bmp_24_rocket_64x43.bmp"))
        #expect(try ImageDecoder().decode(ImageEncoder(format: .ico).encode(small)).width == 64)
    }

    @Test("MIME types are the registered ones")
    func mimeTypes() {
        #expect(ImageFormat.bmp.mimeType == "image/bmp" && ImageFormat.ico.mimeType == "image/x-icon")
        #expect(ImageFormat.heic.mimeType == "image/heic" && ImageFormat.jxl.mimeType == "image/jxl" && ImageFormat.tiff.mimeType == "image/tiff")
    }
}
