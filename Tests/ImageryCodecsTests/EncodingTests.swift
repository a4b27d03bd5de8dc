import Testing
import Imagery
import ImageryCodecs

@Suite struct EncodingTests {
    let photo: Bitmap

    init() throws {
        photo = try Thumbnailer(resize: .fit(width: 200, height: 200)).thumbnail(from: TestImages.bytes("jpeg_small_base_rocket_640x427.jpg"))
    }

    @Test func jpegQualityTradesSizeForFidelity() throws {
        let low = try ImageEncoder(format: .jpeg, quality: 20).encode(photo)
        let high = try ImageEncoder(format: .jpeg, quality: 95).encode(photo)
        #expect(low.count < high.count)
        let lowBack = try ImageDecoder().decode(low), highBack = try ImageDecoder().decode(high)
        #expect(ImageFormat(sniffing: high) == .jpeg)
        #expect(highBack.width == photo.width && highBack.height == photo.height)
        #expect(ImageComparison.psnr(highBack, photo) > ImageComparison.psnr(lowBack, photo) + 3)
        // 4:2:0 chroma subsampling bounds fidelity on this detailed photo (34.2 dB measured).
        #expect(ImageComparison.psnr(highBack, photo) > 32)
    }

    @Test func pngIsLossless() throws {
        let png = try ImageEncoder(format: .png).encode(photo)
        #expect(ImageFormat(sniffing: png) == .png)
        #expect(try ImageDecoder().decode(png).pixels == photo.pixels)
    }

    @Test func jpegFlattensTransparencyOverTheBackground() throws {
        let clear = Bitmap(width: 16, height: 16, filledWith: RGBA(red: 0, green: 0, blue: 0, alpha: 0))
        let encoder = try ImageEncoder(format: .jpeg, quality: 95, background: RGBA(red: 255, green: 0, blue: 0))
        let back = try ImageDecoder().decode(encoder.encode(clear))
        let p = back.pixel(x: 8, y: 8)
        #expect(p.red > 240 && p.green < 15 && p.blue < 15)
    }

    @Test func invalidQualityIsRejected() {
        #expect(throws: ImageError.invalidRequest("quality 0 is outside 1...100")) { try ImageEncoder(format: .jpeg, quality: 0) }
    }

    @Test func webpFollowsTheTrait() throws {
        if ImageEncoder.supportedFormats.contains(.webp) {
            let lossless = try ImageEncoder(format: .webp, lossless: true).encode(photo)
            #expect(ImageFormat(sniffing: lossless) == .webp)
            #expect(try ImageDecoder().decode(lossless).pixels == photo.pixels)
            let lossy = try ImageEncoder(format: .webp, quality: 80).encode(photo)
            #expect(ImageComparison.psnr(try ImageDecoder().decode(lossy), photo) > 30)
        } else {
            #expect { try ImageEncoder(format: .webp) } throws: { error in
                if case ImageError.unsupportedFormat(.webp, _) = error { return true }
                return false
            }
        }
    }

    @Test("The cache encoder says the format it writes: JPEG when opaque, PNG when any pixel is transparent")
    func cacheEncoderFormat() throws {
        let encoder = CacheEncoder()
        let opaque = Bitmap(width: 4, height: 4, filledWith: RGBA(red: 10, green: 20, blue: 30))
        let clear = Bitmap(width: 4, height: 4, filledWith: RGBA(red: 10, green: 20, blue: 30, alpha: 100))
        #expect(encoder.format(for: opaque) == .jpeg)
        #expect(encoder.format(for: clear) == .png)
        #expect(ImageFormat(sniffing: try encoder.encode(opaque)) == .jpeg)
        #expect(ImageFormat(sniffing: try encoder.encode(clear)) == .png)
    }
}
