import Foundation
import Testing
import Imagery
import ImageryCodecs

/// Every image decodes to the size, orientation and format its manifest gives.
@Suite struct DecodingTests {
    static func checkDecodes(_ entry: ManifestEntry) throws {
        let bytes = try entry.bytes
        let format = try #require(ImageFormat(sniffing: bytes))
        if !ImageDecoder.supportedFormats.contains(format) {
            // Without its trait the format is still recognised, and refused clearly.
            #expect { try ImageDecoder().decode(bytes) } throws: { error in
                if case ImageError.unsupportedFormat(format, _) = error { return true }
                return false
            }
            return
        }
        if entry.isRefused {
            #expect(throws: ImageError.self) { try ImageDecoder().decode(bytes) }
            return
        }
        let bitmap = try ImageDecoder().decode(bytes)
        #expect(PixelSize(width: bitmap.width, height: bitmap.height) == entry.displaySize)
        #expect(bitmap.metadata.originalSize == PixelSize(width: entry.width, height: entry.height))
        #expect(bitmap.metadata.sourceOrientation == entry.orientation)
        #expect(bitmap.metadata.format?.description.uppercased() == entry.format)
        #expect(bitmap.orientation == .up)
        #expect(bitmap.metadata.warnings.isEmpty)
        #expect(bitmap.alphaMode != .premultiplied)
    }

    @Test("The manifests behind the parameterised tests list what is there: an empty list would pass them all")
    func manifestsAreComplete() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: TestImages.bundled.path)
            .filter { !$0.hasPrefix("reference_") && $0 != "MANIFEST.tsv" }
        #expect(files.count >= 15)
        #expect(Set(TestImages.bundledEntries.map(\.file)) == Set(files))
        #expect(ImageHeaderTests.files.count >= files.count)   // the references have sizes in their names too
        if TestImages.corpusIsAvailable { #expect(TestImages.corpusEntries.count >= 10) }
    }

    @Test(arguments: TestImages.bundledEntries)
    func bundledImageDecodes(_ entry: ManifestEntry) throws {
        try Self.checkDecodes(entry)
    }

    @Test(.enabled(if: TestImages.corpusIsAvailable, "needs ../shared/corpus"), arguments: TestImages.corpusEntries)
    func corpusImageDecodes(_ entry: ManifestEntry) throws {
        try Self.checkDecodes(entry)
    }

    @Test func exifOrientationSixIsAppliedOrKeptOnRequest() throws {
        let bytes = try TestImages.bytes("jpeg_exif6_aqua_2560x1600.jpg")
        var options = DecodingOptions()
        options.appliesOrientation = false
        let stored = try ImageDecoder().decode(bytes, options: options)
        #expect(stored.width == 2560 && stored.height == 1600 && stored.orientation == .right)
        let upright = try ImageDecoder().decode(bytes)
        #expect(upright.width == 1600 && upright.height == 2560)
        // Rotating 90° clockwise puts the stored bottom-left pixel at the top-left.
        #expect(upright.pixel(x: 0, y: 0) == stored.pixel(x: 0, y: 1599))
        #expect(upright.pixel(x: 1599, y: 0) == stored.pixel(x: 0, y: 0))
    }

    @Test func draftDecodeUsesDCTScaling() throws {
        let bytes = try TestImages.bytes("jpeg_med_gray_pier_2560x1600.jpg")
        var options = DecodingOptions()
        options.draft = .fit(width: 256, height: 256)
        let draft = try ImageDecoder().decode(bytes, options: options)
        // 1/8 scale is the smallest that still covers 256x160.
        #expect(draft.width == 320 && draft.height == 200)
        #expect(draft.metadata.decodeScale == 0.125)
        #expect(draft.metadata.originalSize == PixelSize(width: 2560, height: 1600))
    }

    @Test func draftDecodeOfPNGBoxReducesWhileStreaming() throws {
        let bytes = try TestImages.bytes("png_pal8_spacefun_2048x1542.png")
        var options = DecodingOptions()
        options.draft = .fit(width: 128, height: 128)
        let draft = try ImageDecoder().decode(bytes, options: options)
        // 2048 → 128 is 16×: the box stage takes all of it, 1542 rows → 97 (the last block partial).
        #expect(draft.width == 128 && draft.height == 97)
        #expect(draft.metadata.decodeScale == 1.0 / 16)
    }

    @Test func grayscaleAndSixteenBitPNGsBecomeRGBA() throws {
        let gray = try TestImages.decodePNG("png_gray_camera_512x512.png")
        let p = gray.pixel(x: 100, y: 100)
        #expect(p.red == p.green && p.green == p.blue && p.alpha == 255)
        let deep = try TestImages.decodePNG("png16_rgb_chelsea_451x300.png")
        #expect(deep.alphaMode == .opaque && deep.width == 451)
    }

    @Test func interlacedPNGMatchesItsOwnThumbnailGeometry() throws {
        let bitmap = try TestImages.decodePNG("png_interlaced_motorcycle_741x500.png")
        #expect(bitmap.width == 741 && bitmap.height == 500)
        // Adam7 pass 7 fills odd rows: a broken interlace leaves them black.
        var nonBlackOddRows = 0
        for y in stride(from: 1, to: 500, by: 2) where bitmap.pixel(x: 370, y: y) != RGBA(red: 0, green: 0, blue: 0) {
            nonBlackOddRows += 1
        }
        #expect(nonBlackOddRows > 200)
    }
}
