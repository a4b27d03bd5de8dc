import Testing
@testable import ImageryCodecs
import Imagery
import ImageryTestSupport

/// HEIC, AVIF and JPEG XL: what each trait adds, and what a build without it says.
/// (Each bundled file's size, format and orientation is checked by `DecodingTests` too.)
@Suite struct ModernFormatTests {
    // Under .ci/run's trait pass each of these runs, and fails naming its trait if it is missing.
    static let heif = CIRun.runs(needingTrait: "HEIF", compiled: ImageDecoder.supportedFormats.contains(.heic))
    static let avif = CIRun.runs(needingTrait: "AVIF", compiled: ImageDecoder.supportedFormats.contains(.avif))
    static let jpegXL = CIRun.runs(needingTrait: "JPEGXL", compiled: ImageDecoder.supportedFormats.contains(.jxl))
    static let avifOut = CIRun.runs(needingTrait: "AVIF", compiled: ImageEncoder.supportedFormats.contains(.avif))

    /// The same photo, decoded from the JPEG it was made from and reduced to the same size.
    static func rocket320() throws -> Bitmap {
        try Thumbnailer(resize: .fit(width: 320, height: 214)).thumbnail(from: TestImages.bytes("jpeg_small_base_rocket_640x427.jpg"))
    }

    static func isUnsupported(_ error: any Error, _ format: ImageFormat, naming trait: String) -> Bool {
        guard case let ImageError.unsupportedFormat(refused, reason) = error else { return false }
        return refused == format && reason.contains("--traits \(trait)")
    }

    @Test("Without its trait a format is recognised and refused, naming the trait to build with", arguments: [
        ("heic_rocket_320x214.heic", ImageFormat.heic, "HEIF"),
        ("avif_rocket_320x214.avif", .avif, "AVIF"),
        ("jxl_rocket_320x214.jxl", .jxl, "JPEGXL"),
        ("svg_logo_gvim_376x376.svg", .svg, "SVG"),
        ("tiff_lzw_strips_rocket_100x67.tif", .tiff, "TIFF"),
    ])
    func refusedWithoutTrait(file: String, format: ImageFormat, trait: String) throws {
        let bytes = try TestImages.bytes(file)
        #expect(ImageFormat(sniffing: bytes) == format)
        if ImageDecoder.supportedFormats.contains(format) {
            #expect(try ImageDecoder().decode(bytes).metadata.format == format)
        } else {
            #expect { try ImageDecoder().decode(bytes) } throws: { Self.isUnsupported($0, format, naming: trait) }
        }
    }

    @Test("JPEG XL is recognised bare and in its container")
    func jpegXLSignatures() {
        #expect(ImageFormat(sniffing: [0xFF, 0x0A, 0x00]) == .jxl)
        #expect(ImageFormat(sniffing: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A, 0, 0]) == .jxl)
        #expect(ImageFormat.jxl.mimeType == "image/jxl")
    }

    // MARK: HEIF

    @Test(.enabled(if: heif, "needs the HEIF trait"))
    func heicDecodesCloseToItsSourceInSRGB() throws {
        let heic = try ImageDecoder().decode(TestImages.bytes("heic_rocket_320x214.heic"))
        #expect(heic.width == 320 && heic.height == 214 && heic.alphaMode == .opaque)
        // The file carries the JPEG's Adobe RGB profile: converted, it matches the JPEG's own conversion.
        #expect(heic.metadata.colorProfile?.convertedToSRGB == true)
        #expect(ImageComparison.psnr(heic, try Self.rocket320()) > 30)
    }

    @Test(.enabled(if: heif, "needs the HEIF trait"))
    func heicDraftUsesTheEmbeddedThumbnailOnlyWhenItCovers() throws {
        let bytes = try TestImages.bytes("heic_rocket_320x214.heic")
        var options = DecodingOptions()
        options.draft = .fit(width: 64, height: 64)
        let small = try ImageDecoder().decode(bytes, options: options)
        #expect(small.width == 96 && small.height == 64)
        #expect(small.metadata.originalSize == PixelSize(width: 320, height: 214))
        #expect(small.metadata.decodeScale == 96.0 / 320)
        options.draft = .fit(width: 200, height: 200)
        let full = try ImageDecoder().decode(bytes, options: options)
        #expect(full.width == 320 && full.height == 214 && full.metadata.decodeScale == 1)
    }

    @Test("An EXIF orientation inside HEIC and AVIF is not applied: the container's transform decides", .enabled(if: heif && avif, "needs the HEIF and AVIF traits"))
    func exifInsideHEIFIsIgnored() throws {
        // Both files hold Orientation=6 in their Exif; the HEIC has no irot, the AVIF irot=1 imir=0.
        let heic = try ImageDecoder().decode(TestImages.bytes("heic_exif6_aqua_400x250.heic"))
        #expect(heic.width == 400 && heic.height == 250)
        var stored = DecodingOptions()
        stored.appliesOrientation = false
        let avifStored = try ImageDecoder().decode(TestImages.bytes("avif_irot1_imir0_aqua_400x250.avif"), options: stored)
        #expect(avifStored.width == 400 && avifStored.orientation == .leftMirrored)
        let avif = try ImageDecoder().decode(TestImages.bytes("avif_irot1_imir0_aqua_400x250.avif"))
        #expect(avif.width == 250 && avif.height == 400)
        // A quarter turn anticlockwise, then top and bottom exchanged, is a transpose.
        var transposed = heic
        transposed.orientation = .leftMirrored
        #expect(ImageComparison.psnr(avif, transposed.oriented()) > 28)
        var rotated = heic
        rotated.orientation = .left
        #expect(ImageComparison.psnr(avif, rotated.oriented()) < 20)
    }

    @Test(.enabled(if: heif, "needs the HEIF trait"))
    func heicOverThePixelLimitIsRefusedBeforeDecoding() throws {
        var options = DecodingOptions()
        options.maximumPixelCount = 320 * 214 - 1
        #expect(throws: ImageError.tooLarge(width: 320, height: 214, limit: 320 * 214 - 1)) {
            try ImageDecoder().decode(TestImages.bytes("heic_rocket_320x214.heic"), options: options)
        }
    }

    @Test("A HEIC whose image claims 65535×65535 is refused before anything that size exists", .enabled(if: heif, "needs the HEIF trait"))
    func absurdHEICIsRefused() throws {
        let bytes = Fixtures.claimingSize(65535, 65535, in: try TestImages.bytes("heic_rocket_320x214.heic"))
        #expect { try ImageDecoder().decode(bytes) } throws: { error in
            switch error as? ImageError {
            case .tooLarge(65535, 65535, _)?: true
            // Over libheif's own limit (32768 a side), libheif refuses while reading the boxes.
            case let .corrupt(.heic, detail)?: detail.contains("exceeds the maximum image size")
            default: false
            }
        }
    }

    @Test("A HEIF grid decodes whole: 2x2 tiles of the rocket are four copies of its own decode", .enabled(if: heif, "needs the HEIF trait"))
    func heifGridDecodes() throws {
        let tile = try ImageDecoder().decode(TestImages.bytes("heic_rocket_320x214.heic"))
        let grid = try ImageDecoder().decode(TestImages.bytes("heic_grid_2x2_rocket_640x428.heic"))
        #expect(grid.width == 640 && grid.height == 428)
        for (left, top) in [(0, 0), (320, 0), (0, 214), (320, 214)] {
            var different = 0
            for y in Swift.stride(from: 0, to: 214, by: 7) {
                for x in Swift.stride(from: 0, to: 320, by: 7) where grid.pixel(x: left + x, y: top + y) != tile.pixel(x: x, y: y) {
                    different += 1
                }
            }
            #expect(different == 0, "tile at \(left),\(top)")
        }
    }

    @Test("HEIF grids claiming absurd sizes are refused from their headers: 32000x32100 by the pixel limit, 81600x54570 by libheif's own", .enabled(if: heif, "needs the HEIF trait"))
    func absurdHEIFGridsAreRefused() throws {
        #expect(throws: ImageError.tooLarge(width: 32000, height: 32100, limit: DecodingOptions().maximumPixelCount)) {
            try ImageDecoder().decode(TestImages.bytes("heic_grid_150x100_claims_32000x32100.heic"))
        }
        #expect {
            try ImageDecoder().decode(TestImages.bytes("heic_grid_255x255_claims_81600x54570.heic"))
        } throws: { error in
            switch error as? ImageError {
            case .tooLarge(81600, 54570, _)?: true
            case let .corrupt(.heic, detail)?: detail.contains("exceeds the maximum image size")
            default: false
            }
        }
    }

    @Test("A HEIC within libheif's limit but over the pixel limit is refused by the size check", .enabled(if: heif, "needs the HEIF trait"))
    func largeHEICIsRefusedByThePixelLimit() throws {
        let bytes = Fixtures.claimingSize(20000, 20000, in: try TestImages.bytes("heic_rocket_320x214.heic"))
        #expect(throws: ImageError.tooLarge(width: 20000, height: 20000, limit: DecodingOptions().maximumPixelCount)) {
            try ImageDecoder().decode(bytes)
        }
    }

    // MARK: AVIF

    @Test("irot and imir map to the EXIF orientation that does the same", .enabled(if: avif, "needs the AVIF trait"), arguments: [
        (0, nil, ImageOrientation.up), (1, nil, .left), (2, nil, .down), (3, nil, .right),
        (0, 1, .upMirrored), (0, 0, .downMirrored), (1, 0, .leftMirrored), (1, 1, .rightMirrored),
        (2, 1, .downMirrored), (3, 0, .rightMirrored), (3, 1, .leftMirrored),
    ] as [(UInt8, UInt8?, ImageOrientation)])
    func avifTransforms(rotation: UInt8, mirror: UInt8?, expected: ImageOrientation) {
        #if AVIF
        let flags: UInt32 = (rotation == 0 ? 0 : 1 << 2) | (mirror == nil ? 0 : 1 << 3)
        #expect(AVIFDecoder.orientation(flags: flags, rotation: rotation, mirror: mirror ?? 0) == expected)
        #endif
    }

    @Test(.enabled(if: avif, "needs the AVIF trait"))
    func avifWithAlphaKeepsItStraight() throws {
        let logo = try ImageDecoder().decode(TestImages.bytes("avif_alpha_debianlogo_128x128.avif"))
        #expect(logo.hasTransparency && logo.alphaMode == .straight)
        let opaque = try ImageDecoder().decode(TestImages.bytes("avif_rocket_320x214.avif"))
        #expect(opaque.alphaMode == .opaque)
        #expect(ImageComparison.psnr(opaque, try Self.rocket320()) > 30)
    }

    @Test("AVIF and JPEG XL drafts are box-reduced to the draft before they are returned", .enabled(if: avif && jpegXL, "needs the AVIF and JPEGXL traits"), arguments: [
        "avif_rocket_320x214.avif", "jxl_rocket_320x214.jxl",
    ])
    func draftsAreBoxReduced(file: String) throws {
        var options = DecodingOptions()
        options.draft = .fit(width: 64, height: 64)
        let draft = try ImageDecoder().decode(TestImages.bytes(file), options: options)
        // 64 × 43 is a scale a hair over 1/5 (43 / 214), so the largest whole factor that covers
        // it is 4: 80 × 54 (the last row of boxes partial).
        #expect(draft.width == 80 && draft.height == 54)
        #expect(draft.metadata.decodeScale == 0.25)
        #expect(draft.metadata.originalSize == PixelSize(width: 320, height: 214))
    }

    @Test("An AVIF that claims 65535×65535 is refused before anything that size exists", .enabled(if: avif, "needs the AVIF trait"))
    func absurdAVIFIsRefused() throws {
        let bytes = Fixtures.claimingSize(65535, 65535, in: try TestImages.bytes("avif_rocket_320x214.avif"))
        #expect { try ImageDecoder().decode(bytes) } throws: { error in
            switch error as? ImageError {
            case .tooLarge(65535, 65535, _)?: true
            // libavif checks its imageSizeLimit (set to the pixel limit) while parsing, and says so.
            case let .corrupt(.avif, detail)?: detail.contains("too large [65535x65535]")
            default: false
            }
        }
    }

    @Test("q maps onto libavif's quantizers as libheif and libavif 1.x map it", .enabled(if: avifOut, "needs the AVIF trait"))
    func avifQuantizers() {
        #if AVIF
        #expect(AVIFEncoder.quantizer(quality: 100) == 0)
        #expect(AVIFEncoder.quantizer(quality: 80) == 13)
        #expect(AVIFEncoder.quantizer(quality: 50) == 32)
        #expect(AVIFEncoder.quantizer(quality: 1) == 62)
        #endif
    }

    @Test(.enabled(if: avifOut && avif, "needs the AVIF trait"))
    func avifEncodesAndTradesSizeForFidelity() throws {
        let photo = try Self.rocket320()
        let high = try ImageEncoder(format: .avif, quality: 90).encode(photo)
        let low = try ImageEncoder(format: .avif, quality: 30).encode(photo)
        #expect(ImageFormat(sniffing: high) == .avif)
        #expect(low.count < high.count)
        let highBack = try ImageDecoder().decode(high), lowBack = try ImageDecoder().decode(low)
        #expect(highBack.width == 320 && highBack.height == 214)
        #expect(ImageComparison.psnr(highBack, photo) > ImageComparison.psnr(lowBack, photo) + 2)
        #expect(ImageComparison.psnr(highBack, photo) > 32)
    }

    @Test(.enabled(if: avifOut && avif, "needs the AVIF trait"))
    func avifKeepsAlphaOnlyWhereThereIsSome() throws {
        let logo = try ImageDecoder().decode(TestImages.bytes("png_pal8_trns_debianlogo_256x256.png"))
        #expect(logo.hasTransparency)
        let back = try ImageDecoder().decode(ImageEncoder(format: .avif, quality: 80).encode(logo))
        #expect(back.hasTransparency && back.alphaMode == .straight)
        let photo = try ImageDecoder().decode(ImageEncoder(format: .avif, quality: 80).encode(Self.rocket320()))
        #expect(photo.alphaMode == .opaque)
    }

    @Test("The AVIF speed reaches aom, within 0...10", .enabled(if: avifOut, "needs the AVIF trait"))
    func avifSpeedReachesTheEncoder() throws {
        let photo = try Self.rocket320()
        var encoder = try ImageEncoder(format: .avif, quality: 60)
        #expect(encoder.avifSpeed == 9)
        let fast = try encoder.encode(photo)
        encoder.avifSpeed = 6
        let slow = try encoder.encode(photo)
        #expect(fast != slow)
        encoder.avifSpeed = 42
        #expect(encoder.avifSpeed == 10)
    }

    @Test("Without the AVIF trait, asking to write AVIF names the trait", .enabled(if: !avifOut, "this build writes AVIF"))
    func avifEncoderRefusedWithoutTrait() {
        #expect { try ImageEncoder(format: .avif) } throws: { Self.isUnsupported($0, .avif, naming: "AVIF") }
    }

    // MARK: JPEG XL

    @Test(.enabled(if: jpegXL, "needs the JPEGXL trait"))
    func jpegXLDecodesInSRGBWithAlpha() throws {
        let rocket = try ImageDecoder().decode(TestImages.bytes("jxl_rocket_320x214.jxl"))
        #expect(rocket.width == 320 && rocket.height == 214 && rocket.alphaMode == .opaque)
        #expect(ImageComparison.psnr(rocket, try Self.rocket320()) > 30)
        let logo = try ImageDecoder().decode(TestImages.bytes("jxl_lossless_alpha_debianlogo_128x128.jxl"))
        #expect(logo.hasTransparency && logo.alphaMode == .straight)
    }

    @Test(.enabled(if: jpegXL, "needs the JPEGXL trait"))
    func jpegXLOverThePixelLimitIsRefused() throws {
        var options = DecodingOptions()
        options.maximumPixelCount = 1000
        #expect(throws: ImageError.tooLarge(width: 320, height: 214, limit: 1000)) {
            try ImageDecoder().decode(TestImages.bytes("jxl_rocket_320x214.jxl"), options: options)
        }
    }

    /// The codecs are Debian's, not instrumented: this checks Imagery's side of each (limits,
    /// buffers, error mapping) against damaged files, not libheif's, libavif's or libjxl's insides.
    @Test("Seeded mutations of HEIC, AVIF and JPEG XL files decode or fail with a typed error", .enabled(if: heif && avif && jpegXL, "needs AllFormats"), arguments: [
        "heic_rocket_320x214.heic", "avif_rocket_320x214.avif", "avif_alpha_debianlogo_128x128.avif", "jxl_rocket_320x214.jxl",
        "jxl_lossless_alpha_debianlogo_128x128.jxl",
    ])
    func mutatedFilesNeverCrash(name: String) throws {
        try CorruptInputTests.checkMutations(of: name, someStillDecode: !name.hasSuffix(".jxl"))
    }
}
