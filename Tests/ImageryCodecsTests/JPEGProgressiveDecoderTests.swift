import Foundation
@testable import Imagery
@testable import ImageryCodecs
import ImageryTestSupport
import Testing

/// libjpeg-turbo's buffered-image mode behind `ImageDecoder.progressiveDecoder`, fed as a
/// download would feed it.
@Suite
struct JPEGProgressiveDecoderTests {
    /// Previews of `bytes` fed in runs of `chunk` bytes, with the draft a 320x256 fit needs.
    func previews(of bytes: [UInt8], chunk: Int = 16 << 10, options: DecodingOptions = DecodingOptions()) throws -> [Bitmap] {
        let decoder = try #require(ImageDecoder().progressiveDecoder(resize: .fit(width: 320, height: 256), allowsUpscaling: false, options: options))
        var previews: [Bitmap] = []
        var start = 0
        while start < bytes.count {
            let end = min(start + chunk, bytes.count)
            try decoder.append(Array(bytes[start..<end]))
            if let preview = try decoder.preview() { previews.append(preview) }
            start = end
        }
        return previews
    }

    @Test("A progressive JPEG gives a preview per completed scan, each a whole picture nearer the image than the last")
    func scansBecomePreviews() throws {
        let previews = try previews(of: Fixtures.meadow)
        #expect(previews.count >= 3, "\(previews.count) previews")
        // The draft for 320x256 with headroom 2 is 640x512: libjpeg's 4/8 of 1280x1024
        #expect(previews.allSatisfy { $0.width == 640 && $0.height == 512 && $0.orientation == .up })
        let final = try ImageDecoder().decode(Fixtures.meadow, resize: .fit(width: 640, height: 512), allowsUpscaling: false, options: DecodingOptions())
        let first = try previews[0].resized(.fit(width: 640, height: 512))
        let last = try previews[previews.count - 1].resized(.fit(width: 640, height: 512))
        #expect(ImageComparison.psnr(last, final) > ImageComparison.psnr(first, final))
        #expect(ImageComparison.psnr(last, final) > 30)
    }

    @Test("One byte at a time gives the same previews as large runs: the decoder never needs more than it was given")
    func byteAtATime() throws {
        let small = try previews(of: Fixtures.meadow, chunk: 1)
        #expect(small.count >= 3)
        #expect(small.allSatisfy { $0.width == 640 && $0.height == 512 })
    }

    @Test("A baseline JPEG is refused at its header, before libjpeg holds its coefficients; a PNG at its first bytes")
    func nothingToPreview() throws {
        #expect(throws: ImageError.unsupportedFormat(.jpeg, reason: "no previews: not a progressive JPEG")) { try previews(of: Fixtures.rocket) }
        let decoder = try #require(ImageDecoder().progressiveDecoder(resize: nil, allowsUpscaling: false, options: DecodingOptions()))
        #expect(throws: ImageError.self) { try decoder.append(Array(Fixtures.logo.prefix(100))) }
    }

    @Test("Damaged data gives a typed error, after whole previews of the good part")
    func damaged() throws {
        var damaged = Fixtures.meadow
        for index in (damaged.count / 2)..<(damaged.count / 2 + 4096) { damaged[index] = 0xFF }
        var options = DecodingOptions()
        options.policy = .strict
        let decoder = try #require(ImageDecoder().progressiveDecoder(resize: .fit(width: 320, height: 256), allowsUpscaling: false, options: options))
        var previews = 0
        let error = #expect(throws: ImageError.self) {
            var start = 0
            while start < damaged.count {
                let end = min(start + 8192, damaged.count)
                try decoder.append(Array(damaged[start..<end]))
                if try decoder.preview() != nil { previews += 1 }
                start = end
            }
        }
        #expect(previews >= 1)
        #expect(error.map { "\($0)" }?.contains("progressively") == true)
    }

    @Test("A header over the pixel limit is refused before any pixel memory")
    func overTheLimit() throws {
        var options = DecodingOptions()
        options.maximumPixelCount = 1_000_000
        let decoder = try #require(ImageDecoder().progressiveDecoder(resize: nil, allowsUpscaling: false, options: options))
        #expect(throws: ImageError.self) { try decoder.append(Array(Fixtures.meadow.prefix(32 << 10))) }
    }
}
