#if AVIF
import CAvif
#endif
import Imagery
@testable import ImageryCodecs
import ImageryTestSupport
import Testing

/// A source's EXIF, XMP, IPTC and ICC profile, read as a request keeps them and written back
/// into JPEG, PNG, WebP and AVIF, and what an image server keeps of EXIF: the copyright alone, or the
/// whole block upright and without the original's thumbnail. Where another reader can check
/// the result (libjpeg-turbo's and libpng's ICC readers, the JPEG decoder's EXIF orientation,
/// libwebp, libavif), it does.
@Suite struct EmbeddedMetadataTests {
    static let webpOut = CIRun.runs(needingTrait: "WebP", compiled: ImageEncoder.supportedFormats.contains(.webp))
    static let avifOut = CIRun.runs(needingTrait: "AVIF", compiled: ImageEncoder.supportedFormats.contains(.avif))
    let rocket: [UInt8]
    let xmp = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>"#
    let iptc: [UInt8] = Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0, 0, 0, 8] + [0x1C, 0x02, 0x74, 0x00, 0x03] + Array("(c)".utf8)

    init() throws {
        rocket = try TestImages.bytes("jpeg_small_base_rocket_640x427.jpg")
    }

    @Test("Decoding keeps only the blocks asked for; nothing unless asked; the EXIF orientation is still applied")
    func readsWhatIsKept() throws {
        let source = ExifFixture.jpeg(rocket, exif: ExifFixture.block(), xmp: xmp, iptc: iptc)
        #expect(try ImageDecoder().decode(source).metadata.embedded == nil)
        var options = DecodingOptions()
        options.keptMetadata = [.exif, .xmp, .iptc]
        let decoded = try ImageDecoder().decode(source, options: options)
        #expect(decoded.metadata.embedded?.exif == ExifFixture.block())
        #expect(decoded.metadata.embedded?.xmp == Array(xmp.utf8))
        #expect(decoded.metadata.embedded?.iptc == iptc)
        #expect(decoded.metadata.embedded?.iccProfile == nil, "not asked for")
        #expect(decoded.width == 427 && decoded.height == 640, "orientation 6 turned it upright")
        options.keptMetadata = [.xmp]
        #expect(try ImageDecoder().decode(source, options: options).metadata.embedded == EmbeddedMetadata(xmp: Array(xmp.utf8)))
    }

    @Test("Keeping the colour profile keeps the pixels in its colours; stripping it converts them")
    func colourProfileKeptWithItsColours() throws {
        var options = DecodingOptions()
        let converted = try ImageDecoder().decode(rocket, options: options)
        options.keptMetadata = [.colorProfile]
        let kept = try ImageDecoder().decode(rocket, options: options)
        let profile = try #require(kept.metadata.embedded?.iccProfile)
        #expect(profile.count > 128)
        #expect(kept.metadata.colorProfile?.convertedToSRGB == false && converted.metadata.colorProfile?.convertedToSRGB == true)
        #expect(kept.pixels != converted.pixels)
    }

    @Test("Written into JPEG, PNG and WebP, every block reads back as it was, and other readers take the files")
    func roundTrips() throws {
        var options = DecodingOptions()
        options.keptMetadata = .all
        let source = ExifFixture.jpeg(rocket, exif: ExifFixture.block(orientation: 1), xmp: xmp, iptc: iptc)
        let image = try Thumbnailer(resize: .fit(width: 160, height: 160), decodingOptions: options).thumbnail(from: source)
        let embedded = try #require(image.metadata.embedded)
        var formats: [ImageFormat] = [.jpeg, .png]
        if Self.webpOut { formats.append(.webp) }
        for format in formats {
            var encoder = try ImageEncoder(format: format, quality: 80)
            encoder.embeddedMetadata = embedded
            let file = try encoder.encode(image)
            let back = EmbeddedMetadata.read(from: file, format: format, iccProfile: nil)
            #expect(back.exif == embedded.exif, "\(format)")
            #expect(back.xmp == embedded.xmp, "\(format)")
            #expect(back.iptc == (format == .jpeg ? embedded.iptc : nil), "\(format): IPTC only in JPEG")
            // The profile as libjpeg-turbo, libpng or libwebp reads it, and the pixels decode.
            let decoded = try ImageDecoder().decode(file, options: options)
            #expect(decoded.metadata.embedded?.iccProfile == embedded.iccProfile, "\(format)")
            #expect(decoded.width == image.width && decoded.height == image.height, "\(format)")
        }
        // PNG: a profile replaces the encoder's sRGB chunk; a file says one or the other.
        var png = try ImageEncoder(format: .png)
        png.embeddedMetadata = EmbeddedMetadata(iccProfile: embedded.iccProfile)
        let chunks = EncodedStructure.pngChunks(try png.encode(image))
        #expect(chunks.contains("iCCP") && !chunks.contains("sRGB"), "\(chunks)")
    }

    @Test("Written into AVIF, EXIF, XMP and the profile come back from libavif as they went in; IPTC has no place there", .enabled(if: avifOut, "needs the AVIF trait"))
    func avifCarriesTheBlocks() throws {
        #if AVIF
        var options = DecodingOptions()
        options.keptMetadata = .all
        let source = ExifFixture.jpeg(rocket, exif: ExifFixture.block(orientation: 1), xmp: xmp, iptc: iptc)
        let image = try Thumbnailer(resize: .fit(width: 96, height: 96), decodingOptions: options).thumbnail(from: source)
        let embedded = try #require(image.metadata.embedded)
        try #require(embedded.exif != nil && embedded.xmp != nil && embedded.iccProfile != nil)
        var encoder = try ImageEncoder(format: .avif, quality: 60)
        encoder.embeddedMetadata = embedded
        let file = try encoder.encode(image)

        let decoder = try #require(avifDecoderCreate())
        defer { avifDecoderDestroy(decoder) }
        let parsed = file.withUnsafeBufferPointer { bytes in
            _ = avifDecoderSetIOMemory(decoder, bytes.baseAddress, bytes.count)
            return avifDecoderParse(decoder)
        }
        try #require(parsed == AVIF_RESULT_OK)
        let read = try #require(decoder.pointee.image).pointee
        func bytes(_ data: avifRWData) -> [UInt8]? { data.size == 0 ? nil : Array(UnsafeBufferPointer(start: data.data, count: data.size)) }
        #expect(bytes(read.exif) == embedded.exif)
        #expect(bytes(read.xmp) == embedded.xmp)
        #expect(bytes(read.icc) == embedded.iccProfile)
        // And Imagery's own decoder takes the file, profile and all.
        let decoded = try ImageDecoder().decode(file, options: options)
        #expect(decoded.metadata.embedded?.iccProfile == embedded.iccProfile)
        #expect(decoded.width == image.width && decoded.height == image.height)
        #endif
    }

    @Test("A WebP with alpha (VP8X already) and one without (VP8, VP8L) both gain the blocks and still decode", .enabled(if: webpOut, "needs the WebP trait"))
    func webPForms() throws {
        let logo = try ImageDecoder().decode(TestImages.bytes("png_pal8_trns_debianlogo_256x256.png"))
        #expect(logo.hasTransparency)
        let exif = try #require(ExifBlock(ExifFixture.block())?.copyrightOnly)
        for (quality, lossless) in [(80, false), (100, true)] {
            var encoder = try ImageEncoder(format: .webp, quality: quality)
            encoder.lossless = lossless
            let plain = try encoder.encode(logo)
            encoder.embeddedMetadata = EmbeddedMetadata(exif: exif)
            let file = try encoder.encode(logo)
            #expect(file[12..<16].elementsEqual("VP8X".utf8))
            #expect(file[20] & 0x08 != 0 && file[20] & 0x10 != 0, "VP8X says EXIF and alpha")
            #expect((0..<4).reduce(0) { $0 | Int(file[4 + $1]) << (8 * $1) } == file.count - 8, "RIFF's size")
            #expect(EmbeddedMetadata.read(from: file, format: .webp, iccProfile: nil).exif == exif)
            let back = try ImageDecoder().decode(file), before = try ImageDecoder().decode(plain)
            #expect(back.pixels == before.pixels, "lossless \(lossless): the image data is untouched")
        }
        // IPTC has no WebP chunk: with nothing else to add, the file is left as encoded.
        var plainEncoder = try ImageEncoder(format: .webp, quality: 80)
        let plain = try plainEncoder.encode(logo)
        plainEncoder.embeddedMetadata = EmbeddedMetadata(iptc: iptc)
        #expect(try plainEncoder.encode(logo) == plain)
        let photo = try ImageDecoder().decode(rocket)
        var encoder = try ImageEncoder(format: .webp, quality: 70)
        encoder.embeddedMetadata = EmbeddedMetadata(exif: exif)
        let file = try encoder.encode(photo)
        #expect(file[12..<16].elementsEqual("VP8X".utf8))
        let canvas = (0..<3).reduce(0) { $0 | Int(file[24 + $1]) << (8 * $1) } + 1
        #expect(canvas == photo.width)
        #expect(try ImageDecoder().decode(file).width == photo.width)
    }

    @Test("The copyright alone: a fresh block of IFD0's Artist and Copyright, nothing else; none from a block without them")
    func copyrightOnly() throws {
        let block = try #require(ExifBlock(ExifFixture.block()))
        let kept = try #require(block.copyrightOnly)
        let summary = try #require(ExifFixture.summary(kept))
        #expect(summary.tags == [0x013B, 0x8298] && !summary.hasIFD1 && summary.orientation == nil)
        #expect(ExifFixture.contains(kept, Array(ExifFixture.copyright.utf8)) && ExifFixture.contains(kept, Array(ExifFixture.artist.utf8)))
        #expect(!ExifFixture.contains(kept, Array(ExifFixture.make.utf8)))
        let aqua = try ImageDecoder().decode(TestImages.bytes("jpeg_exif6_aqua_2560x1600.jpg"), options: { var o = DecodingOptions(); o.keptMetadata = [.exif]; o.draft = .fit(width: 64, height: 64); return o }())
        let noCopyright = try #require(aqua.metadata.embedded?.exif)
        #expect(ExifBlock(noCopyright)?.copyrightOnly == nil)
    }

    @Test("The whole block kept: upright when the image was turned, as stored when not; the original's thumbnail cut off and zeroed")
    func keptWhole() throws {
        let block = try #require(ExifBlock(ExifFixture.block(orientation: 6)))
        #expect(ExifFixture.contains(ExifFixture.block(), ExifFixture.thumbnail))
        for upright in [true, false] {
            let kept = try #require(block.kept(upright: upright))
            let summary = try #require(ExifFixture.summary(kept))
            #expect(summary.orientation == (upright ? 1 : 6))
            #expect(!summary.hasIFD1)
            #expect(summary.tags == [0x010F, 0x0112, 0x013B, 0x8298])
            #expect(!ExifFixture.contains(kept, ExifFixture.thumbnail), "the thumbnail's bytes are gone")
        }
    }

    @Test("Damaged containers are never read past their end: JPEG, PNG and WebP headers mutated and cut, every read bounded")
    func damagedContainers() throws {
        var options = DecodingOptions()
        options.keptMetadata = .all
        let image = try Thumbnailer(resize: .fit(width: 48, height: 48), decodingOptions: options)
            .thumbnail(from: ExifFixture.jpeg(rocket, exif: ExifFixture.block(), xmp: xmp, iptc: iptc))
        var files: [(ImageFormat, [UInt8])] = []
        for format in [ImageFormat.jpeg, .png] + (Self.webpOut ? [.webp] : []) {
            var encoder = try ImageEncoder(format: format)
            encoder.embeddedMetadata = image.metadata.embedded
            files.append((format, try encoder.encode(image)))
        }
        var random = SplitMix64(state: 0xC0FF_EE00)
        for (format, file) in files {
            for _ in 0..<1_000 {
                var damaged = Array(file.prefix(Int.random(in: 8...min(file.count, 2_000), using: &random)))
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    damaged[Int.random(in: 0..<damaged.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                }
                let read = EmbeddedMetadata.read(from: damaged, format: format, iccProfile: nil)
                if let exif = read.exif { _ = ExifBlock(exif)?.kept(upright: true) }
                _ = EmbeddedMetadata.iptcResource(in: damaged)
            }
        }
    }

    @Test("Next offsets that loop (IFD0 naming itself, IFD1 naming itself) are stepped over once: IFD1 cut off, its thumbnail zeroed")
    func loopingDirectories() throws {
        func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        // The fixture is big-endian; its IFD0, at 8, has four entries, so its next offset is at 58.
        var ifd0Loop = ExifFixture.block()
        ifd0Loop.replaceSubrange(58..<62, with: be32(8))
        let kept = try #require(ExifBlock(ifd0Loop)?.kept(upright: true))
        #expect(kept.count == ifd0Loop.count)
        #expect(ExifFixture.summary(kept)?.hasIFD1 == false && ExifFixture.summary(kept)?.orientation == 1)
        #expect(ExifBlock(ifd0Loop)?.copyrightOnly != nil)

        // IFD1 has two entries, so its next offset is 26 bytes in.
        var ifd1Loop = ExifFixture.block()
        let ifd1 = ifd1Loop[58..<62].reduce(0) { $0 << 8 | Int($1) }
        ifd1Loop.replaceSubrange((ifd1 + 26)..<(ifd1 + 30), with: be32(ifd1))
        let keptWhole = try #require(ExifBlock(ifd1Loop)?.kept(upright: false))
        #expect(ExifFixture.summary(keptWhole)?.hasIFD1 == false)
        #expect(!ExifFixture.contains(keptWhole, ExifFixture.thumbnail), "the thumbnail's bytes are gone")
    }

    @Test("Damaged EXIF is never read past its end: three thousand mutations of a block, none crashes, each is kept whole or dropped")
    func damagedExif() throws {
        let block = ExifFixture.block()
        var random = SplitMix64(state: 0x5EED_E81F)
        for _ in 0..<3_000 {
            var damaged = block
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                let at = Int.random(in: 0..<damaged.count, using: &random)
                damaged[at] = UInt8.random(in: 0...255, using: &random)
            }
            if Bool.random(using: &random) { damaged.removeLast(Int.random(in: 0..<damaged.count, using: &random)) }
            guard let parsed = ExifBlock(damaged) else { continue }
            _ = parsed.copyrightOnly
            if let kept = parsed.kept(upright: true) { #expect(kept.count == damaged.count) }
        }
        #expect(ExifBlock([0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0xFF, 0x7F]) == nil)
        // An orientation of two values, read by decoders as its first: rewritten whole as 1.
        let malformed = try #require(ExifBlock(ExifFixture.block(orientation: 6, orientationCount: 2))?.kept(upright: true))
        #expect(ExifFixture.summary(malformed)?.orientation == 1)
        // Of a JPEG's Photoshop resources, the IPTC record alone: a thumbnail resource goes.
        let thumbnail: [UInt8] = Array("8BIM".utf8) + [0x04, 0x0C, 0, 0, 0, 0, 0, 5] + [1, 2, 3, 4, 5, 0]
        #expect(EmbeddedMetadata.iptcResource(in: thumbnail + iptc) == iptc)
        #expect(EmbeddedMetadata.iptcResource(in: thumbnail) == nil)
        #expect(ExifBlock(Array("not a tiff".utf8)) == nil)
    }
}
