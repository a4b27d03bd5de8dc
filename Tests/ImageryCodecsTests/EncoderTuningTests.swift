import Imagery
import ImageryCodecs
import ImageryTestSupport
import Testing

/// The encoder settings an operator tunes (imgproxy's `JPEG_PROGRESSIVE`, `PNG_INTERLACED`,
/// `WEBP_EFFORT` and `WEBP_PRESET`): each is checked in the file it writes, and in the pixels
/// that file decodes to.
@Suite struct EncoderTuningTests {
    static let webpOut = CIRun.runs(needingTrait: "WebP", compiled: ImageEncoder.supportedFormats.contains(.webp))
    let photo: Bitmap

    init() throws {
        photo = try Thumbnailer(resize: .fit(width: 200, height: 200)).thumbnail(from: TestImages.bytes("jpeg_small_base_rocket_640x427.jpg"))
    }

    @Test("A progressive JPEG says so in its frame (SOF2), and decodes to what the baseline one decodes to")
    func progressiveJPEG() throws {
        var encoder = try ImageEncoder(format: .jpeg, quality: 85)
        #expect(!encoder.jpegProgressive)
        let baseline = try encoder.encode(photo)
        encoder.jpegProgressive = true
        let progressive = try encoder.encode(photo)
        #expect(EncodedStructure.jpegFrameMarker(baseline) == 0xC0)
        #expect(EncodedStructure.jpegFrameMarker(progressive) == 0xC2)
        let plain = try ImageDecoder().decode(baseline), scanned = try ImageDecoder().decode(progressive)
        #expect(scanned.width == photo.width && scanned.height == photo.height)
        // The same coefficients, only sent in scans: the same pixels, within the decoder's rounding.
        #expect(ImageComparison.psnr(plain, scanned) > 50)
    }

    @Test("An interlaced PNG is Adam7 in its header and holds exactly the pixels; both say sRGB")
    func interlacedPNG() throws {
        var encoder = try ImageEncoder(format: .png)
        #expect(!encoder.pngInterlaced)
        let plain = try encoder.encode(photo)
        encoder.pngInterlaced = true
        let interlaced = try encoder.encode(photo)
        #expect(EncodedStructure.pngInterlaceMethod(plain) == 0)
        #expect(EncodedStructure.pngInterlaceMethod(interlaced) == 1)
        #expect(try ImageDecoder().decode(interlaced).pixels == photo.pixels)
        #expect(try ImageDecoder().decode(plain).pixels == photo.pixels)
        for png in [plain, interlaced] {
            let chunks = EncodedStructure.pngChunks(png)
            #expect(chunks.prefix(2) == ["IHDR", "sRGB"] && chunks.last == "IEND")
        }
    }

    @Test("An interlaced PNG with alpha keeps it")
    func interlacedPNGWithAlpha() throws {
        var pixels = Bitmap(width: 9, height: 7, filledWith: RGBA(red: 200, green: 40, blue: 10)).pixels
        pixels.replaceSubrange((3 * 9 + 4) * 4..<(3 * 9 + 5) * 4, with: [0, 0, 0, 0])
        let image = Bitmap(width: 9, height: 7, pixels: pixels)
        var encoder = try ImageEncoder(format: .png)
        encoder.pngInterlaced = true
        let back = try ImageDecoder().decode(encoder.encode(image))
        #expect(back.pixel(x: 4, y: 3).alpha == 0)
        #expect(back.pixel(x: 0, y: 0) == RGBA(red: 200, green: 40, blue: 10))
        #expect(back.pixel(x: 8, y: 6) == RGBA(red: 200, green: 40, blue: 10))
    }

    @Test("A quantized PNG is indexed, at the fewest bits its palette needs, smaller than truecolour, and close to the photo; binary alpha is kept, partial alpha stays truecolour")
    func quantizedPNG() throws {
        var encoder = try ImageEncoder(format: .png)
        #expect(encoder.pngQuantizationColors == nil)
        let truecolour = try encoder.encode(photo)
        encoder.pngQuantizationColors = 64
        let indexed = try encoder.encode(photo)
        #expect(EncodedStructure.pngColourType(truecolour)?.type == 2)
        #expect(EncodedStructure.pngColourType(indexed)?.type == 3 && EncodedStructure.pngColourType(indexed)?.depth == 8)
        #expect((EncodedStructure.pngPaletteEntries(indexed) ?? 0) <= 64)
        #expect(indexed.count * 2 < truecolour.count, "\(indexed.count) against \(truecolour.count)")
        let back = try ImageDecoder().decode(indexed)
        #expect(back.width == photo.width && back.height == photo.height)
        #expect(ImageComparison.psnr(back, photo) > 28)

        // Four colours: two bits a pixel; the transparent pixel keeps its entry.
        var pixels = Bitmap(width: 9, height: 7, filledWith: RGBA(red: 200, green: 40, blue: 10)).pixels
        pixels.replaceSubrange((3 * 9 + 4) * 4..<(3 * 9 + 5) * 4, with: [0, 0, 0, 0])
        pixels.replaceSubrange(0..<4, with: [0, 0, 255, 255])
        let cutOut = Bitmap(width: 9, height: 7, pixels: pixels)
        encoder.pngQuantizationColors = 4
        let small = try encoder.encode(cutOut)
        #expect(EncodedStructure.pngColourType(small)?.type == 3 && EncodedStructure.pngColourType(small)?.depth == 2)
        let decoded = try ImageDecoder().decode(small)
        #expect(decoded.pixel(x: 4, y: 3).alpha == 0)
        #expect(decoded.pixel(x: 0, y: 0) == RGBA(red: 0, green: 0, blue: 255))
        #expect(decoded.pixel(x: 8, y: 6) == RGBA(red: 200, green: 40, blue: 10))

        // A half-transparent pixel: one transparent entry cannot hold it.
        pixels.replaceSubrange(4..<8, with: [200, 40, 10, 128])
        let soft = try encoder.encode(Bitmap(width: 9, height: 7, pixels: pixels))
        #expect(EncodedStructure.pngColourType(soft)?.type == 6)
        #expect(try ImageDecoder().decode(soft).pixel(x: 1, y: 0).alpha == 128)
    }

    @Test("Lossy WebP's effort and preset each change the file, which stays a WebP of the photo; effort is clamped to 0...6",
          .enabled(if: webpOut, "needs the WebP trait"))
    func webpEffortAndPreset() throws {
        var encoder = try ImageEncoder(format: .webp, quality: 75)
        #expect(encoder.webpEffort == 4 && encoder.webpPreset == .default)
        let standard = try encoder.encode(photo)
        encoder.webpEffort = 0
        let fastest = try encoder.encode(photo)
        encoder.webpEffort = 4
        encoder.webpPreset = .text
        let text = try encoder.encode(photo)
        #expect(standard != fastest)
        #expect(standard != text)
        for webp in [standard, fastest, text] {
            let back = try ImageDecoder().decode(webp)
            #expect(ImageFormat(sniffing: webp) == .webp)
            #expect(back.width == photo.width && back.height == photo.height)
            #expect(ImageComparison.psnr(back, photo) > 28)
        }
        encoder.webpEffort = 42
        #expect(encoder.webpEffort == 6)
        encoder.webpEffort = -1
        #expect(encoder.webpEffort == 0)
    }
}

/// Resizing in linear light (imgproxy's `USE_LINEAR_COLORSPACE`), checked on the pattern it is
/// for: black and white lines, which average to 50% light, sRGB 188, where averaging sRGB's
/// values gives 128; a flat colour stays itself either way.
@Suite struct LinearLightResizeTests {
    @Test("Fine black and white lines reduce to sRGB 188 in linear light, 128 without; a flat colour and alpha are unchanged")
    func linesKeepTheirBrightness() throws {
        var pixels: [UInt8] = []
        for y in 0..<64 { for _ in 0..<64 { pixels += y % 2 == 0 ? [0, 0, 0, 255] : [255, 255, 255, 255] } }
        let lines = Bitmap(width: 64, height: 64, pixels: pixels)
        func reduced(_ image: Bitmap, linear: Bool) throws -> Bitmap {
            var options = DecodingOptions()
            options.resizesInLinearLight = linear
            // PNG's box while decoding would average the lines in sRGB first, as imgproxy's
            // shrink-on-load does: this is the resize's own filter.
            options.reducesWhileDecoding = false
            let png = try ImageEncoder(format: .png).encode(image)
            return try Thumbnailer(resize: .fit(width: 8, height: 8), decodingOptions: options).thumbnail(from: png)
        }
        let linear = try reduced(lines, linear: true).pixel(x: 4, y: 4), plain = try reduced(lines, linear: false).pixel(x: 4, y: 4)
        #expect(abs(Int(linear.red) - 188) <= 2 && abs(Int(plain.red) - 128) <= 2, "linear \(linear), sRGB \(plain)")
        let flat = Bitmap(width: 64, height: 64, filledWith: RGBA(red: 200, green: 40, blue: 10, alpha: 128))
        let back = try reduced(flat, linear: true).pixel(x: 3, y: 3)
        #expect(abs(Int(back.red) - 200) <= 1 && abs(Int(back.green) - 40) <= 1 && abs(Int(back.blue) - 10) <= 1 && back.alpha == 128, "\(back)")
    }
}
