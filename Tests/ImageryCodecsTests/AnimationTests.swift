import Testing
@testable import ImageryCodecs
import Imagery
import ImageryTestSupport

/// Animated GIF and WebP: composition against ImageMagick's and Pillow's, the encoders' round
/// trips, and the limits.
@Suite struct AnimationTests {
    static let webp = CIRun.runs(needingTrait: "WebP", compiled: ImageEncoder.animatedFormats.contains(.webp))
    static let disposalGIF = "gif_anim_disposal_trns_96x64.gif"

    static func animation(_ file: String, resize: Resize? = nil, options: DecodingOptions = DecodingOptions()) throws -> AnimatedImage {
        let decoded = try ImageDecoder().decodeAnimation(TestImages.bytes(file), resize: resize, allowsUpscaling: false, options: options)
        return try #require(decoded, "\(file) decodes as an animation")
    }

    /// A reference strip (frames stacked vertically) cut into its frames.
    static func strip(_ file: String, frameHeight: Int) throws -> [Bitmap] {
        let strip = try ImageDecoder().decode(TestImages.bytes(file))
        return stride(from: 0, to: strip.height, by: frameHeight).map { top in
            let bytes = Array(strip.pixels[top * strip.bytesPerRow..<(top + frameHeight) * strip.bytesPerRow])
            return Bitmap(width: strip.width, height: frameHeight, bytesPerRow: strip.bytesPerRow, pixels: bytes, alphaMode: .straight)
        }
    }

    /// Pixels that differ, counting transparent pixels equal whatever their colour.
    static func differences(_ a: Bitmap, _ b: Bitmap) -> Int {
        var count = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                if p.alpha == 0 && q.alpha == 0 { continue }
                if p != q { count += 1 }
            }
        }
        return count
    }

    @Test("GIF frames are composed as ImageMagick's -coalesce composes them: disposal none, background and previous, with transparency")
    func gifCompositionMatchesImageMagick() throws {
        let animation = try Self.animation(Self.disposalGIF)
        let reference = try Self.strip("reference_gif_anim_disposal_coalesced.png", frameHeight: 64)
        #expect(animation.frames.count == reference.count)
        #expect(animation.size == PixelSize(width: 96, height: 64))
        for (index, (frame, expected)) in zip(animation.frames, reference).enumerated() {
            #expect(Self.differences(frame.image, expected) == 0, "frame \(index + 1)")
        }
        #expect(animation.frames.contains { $0.image.hasTransparency }, "the file's transparency survives")
    }

    @Test("GIF delays become durations and NETSCAPE2.0's repeat count becomes plays")
    func gifTiming() throws {
        var reader = try #require(try ImageDecoder.animationReader(for: TestImages.bytes(Self.disposalGIF), options: DecodingOptions()))
        #expect(reader.loopCount == 4, "loop count 3 in the file is 3 repeats after the first play")
        var durations: [Duration] = []
        while let frame = try reader.nextFrame() { durations.append(frame.duration) }
        #expect(durations.count == reader.frameCount)
        #expect(Set(durations).count > 1, "the file's delays differ: \(durations)")
        #expect(try Self.animation("gif_anim_rocket_8f_160x107.gif").loopCount == 0)
    }

    @Test("A GIF written by the encoder reads back frame for frame, with its timing")
    func gifRoundTrip() throws {
        let animation = try Self.animation(Self.disposalGIF)
        let encoded = try ImageEncoder(format: .gif).encode(animation)
        let decoded = try #require(try ImageDecoder().decodeAnimation(encoded, resize: nil, allowsUpscaling: false, options: DecodingOptions()))
        #expect(decoded.loopCount == animation.loopCount)
        #expect(decoded.frames.map(\.duration) == animation.frames.map(\.duration))
        for (index, (frame, original)) in zip(decoded.frames, animation.frames).enumerated() {
            #expect(Self.differences(frame.image, original.image) == 0, "frame \(index + 1) (few colours: its palette is exact)")
        }
    }

    @Test("Photo frames get a palette each: every frame stays close to its source")
    func gifPalettePerFrame() throws {
        let animation = try Self.animation("gif_anim_rocket_8f_160x107.gif")
        let truecolour = try AnimatedImage(frames: animation.frames.map { frame in
            // Blur a little, so each frame has far more than 256 colours to reduce.
            AnimationFrame(image: try ImageProcessors.GaussianBlur(sigma: 0.6).process(frame.image), duration: frame.duration)
        }, loopCount: 0)
        let encoded = try ImageEncoder(format: .gif).encode(truecolour)
        let decoded = try #require(try ImageDecoder().decodeAnimation(encoded, resize: nil, allowsUpscaling: false, options: DecodingOptions()))
        #expect(decoded.frames.count == 8)
        for (frame, original) in zip(decoded.frames, truecolour.frames) {
            #expect(ImageComparison.psnr(frame.image, original.image) > 30)
        }
    }

    @Test("The LZW encoder's output reads back exactly, past the 4,096-code dictionary's resets", arguments: [1, 2, 16, 255])
    func lzwRoundTrip(colours: Int) throws {
        var random = SplitMix64(state: UInt64(colours))
        let width = 300, height = 200
        let palette = (0..<colours).map { _ in RGBA(red: .random(in: 0...255, using: &random), green: .random(in: 0...255, using: &random), blue: .random(in: 0...255, using: &random), alpha: 255) }
        var pixels: [UInt8] = []
        for index in 0..<(width * height) {
            // Runs and noise, so codes both grow long and stay short.
            let colour = palette[index % 97 < 40 ? 0 : Int.random(in: 0..<colours, using: &random)]
            pixels += [colour.red, colour.green, colour.blue, 255]
        }
        let image = Bitmap(width: width, height: height, pixels: pixels, alphaMode: .opaque)
        let decoded = try ImageDecoder().decode(ImageEncoder(format: .gif).encode(image))
        #expect(decoded.pixels == image.pixels)
    }

    @Test("The frame limit keeps the first frames and says so; the summed and per-frame pixel limits refuse before decoding")
    func limits() throws {
        var options = DecodingOptions()
        options.animation = AnimationLimits(maximumFrameCount: 3)
        let three = try Self.animation("gif_anim_rocket_8f_160x107.gif", options: options)
        #expect(three.frames.count == 3)
        #expect(three.poster.metadata.warnings.contains { $0.contains("first 3 of 8 frames") })

        options = DecodingOptions()
        options.maximumPixelCount = 160 * 107 * 7   // the canvas fits, eight frames of it do not
        #expect(throws: ImageError.self) { try Self.animation("gif_anim_rocket_8f_160x107.gif", options: options) }
        options.animation = AnimationLimits(maximumFramePixelCount: 160 * 107)
        #expect(try Self.animation("gif_anim_rocket_8f_160x107.gif", options: options).frames.count == 8)
        options.animation = AnimationLimits(maximumFramePixelCount: 160 * 106)
        #expect(throws: ImageError.self) { try Self.animation("gif_anim_rocket_8f_160x107.gif", options: options) }
    }

    @Test("An animation bomb (3,000 frames on a 2000x2000 screen) is refused from its header; its first frame still decodes as a still")
    func animationBomb() throws {
        let bytes = try TestImages.bytes("gif_anim_bomb_2000x2000_3000f.gif")
        #expect(ImageHeader.frameCount(of: bytes, format: .gif) == 3000)
        #expect {
            try ImageDecoder().decodeAnimation(bytes, resize: .fit(width: 100, height: 100), allowsUpscaling: false, options: DecodingOptions())
        } throws: { error in
            guard case let ImageError.tooLarge(width, _, _) = error else { return false }
            return width == 2000
        }
        let still = try ImageDecoder().decode(bytes, resize: .fit(width: 100, height: 100), allowsUpscaling: false, options: DecodingOptions())
        #expect(still.width == 100 && still.height == 100)
    }

    @Test("A still is not an animation; a damaged later frame fails a strict decode and ends a lenient one")
    func stillsAndDamage() throws {
        #expect(try ImageDecoder().decodeAnimation(Fixtures.gif, resize: nil, allowsUpscaling: false, options: DecodingOptions()) == nil)
        #expect(try ImageDecoder().decodeAnimation(Fixtures.rocket, resize: nil, allowsUpscaling: false, options: DecodingOptions()) == nil)
        let bytes = try TestImages.bytes("gif_anim_rocket_8f_160x107.gif")
        let cut = Array(bytes.prefix(bytes.count * 3 / 4))
        #expect(throws: ImageError.self) { try ImageDecoder().decodeAnimation(cut, resize: nil, allowsUpscaling: false, options: DecodingOptions()) }
        var lenient = DecodingOptions()
        lenient.policy = .lenient
        let partial = try #require(try ImageDecoder().decodeAnimation(cut, resize: nil, allowsUpscaling: false, options: lenient))
        #expect((1..<8).contains(partial.frames.count))
        #expect(!partial.poster.metadata.warnings.isEmpty)
    }

    @Test("Frames are resized and processed alike: a circle cuts every frame")
    func thumbnailerAppliesProcessorsToEveryFrame() throws {
        let thumbnailer = Thumbnailer(resize: .fill(width: 64, height: 64), processors: [.circle])
        let animation = try #require(try thumbnailer.animatedThumbnail(from: TestImages.bytes("gif_anim_rocket_8f_160x107.gif")))
        #expect(animation.frames.count == 8)
        for frame in animation.frames {
            #expect(frame.image.width == 64 && frame.image.height == 64)
            #expect(frame.image.pixel(x: 0, y: 0).alpha == 0 && frame.image.pixel(x: 32, y: 32).alpha == 255)
        }
        #expect(try thumbnailer.animatedThumbnail(from: Fixtures.rocket) == nil)
    }

    @Test("Every processor applies to every frame, as to that frame alone: crop with gravity, rotate, flip, blur, sharpen, background, circle")
    func everyProcessorOnEveryFrame() throws {
        let processors: [any ImageProcessing] = [
            .crop(width: 60, height: 40, gravity: .northEast), .rotate(degrees: 90), .flip(.horizontal),
            .blur(sigma: 1), .sharpen(), .background(RGBA(red: 0, green: 0, blue: 255, alpha: 255)), .circle,
        ]
        let bytes = try TestImages.bytes(Self.disposalGIF)
        let thumbnailer = Thumbnailer(resize: .width(80), processors: processors)
        let animation = try #require(try thumbnailer.animatedThumbnail(from: bytes))
        let plain = try Self.animation(Self.disposalGIF, resize: .width(80))
        #expect(animation.frames.count == plain.frames.count)
        for (frame, source) in zip(animation.frames, plain.frames) {
            var expected = source.image
            for processor in processors { expected = try processor.process(expected) }
            #expect(frame.image == expected)
            #expect(frame.image.width == 40 && frame.image.height == 40, "80x53, cropped to 60x40, turned, then the circle's square")
        }
    }

    // MARK: WebP

    @Test(.enabled(if: webp, "needs the WebP trait"))
    func webpFramesMatchPillow() throws {
        let animation = try Self.animation("webp_anim_disposal_trns_96x64.webp")
        let reference = try Self.strip("reference_webp_anim_disposal_coalesced.png", frameHeight: 64)
        #expect(animation.frames.count == reference.count)
        for (index, (frame, expected)) in zip(animation.frames, reference).enumerated() {
            #expect(Self.differences(frame.image, expected) == 0, "frame \(index + 1)")
        }
    }

    @Test(.enabled(if: webp, "needs the WebP trait"))
    func webpTimingAndRoundTrip() throws {
        let animation = try Self.animation("webp_anim_rocket_4f_160x107.webp")
        #expect(animation.frames.count == 4 && animation.loopCount == 2)
        #expect(Set(animation.frames.map(\.duration)).count == 2)
        let encoded = try ImageEncoder(format: .webp, quality: 90).encode(animation)
        let decoded = try #require(try ImageDecoder().decodeAnimation(encoded, resize: nil, allowsUpscaling: false, options: DecodingOptions()))
        #expect(decoded.loopCount == 2)
        #expect(decoded.frames.map(\.duration) == animation.frames.map(\.duration))
        for (frame, original) in zip(decoded.frames, animation.frames) {
            #expect(ImageComparison.psnr(frame.image, original.image) > 30)
        }
        // The still decoder gives the first frame, where it used to refuse animations.
        #expect(ImageComparison.psnr(try ImageDecoder().decode(TestImages.bytes("webp_anim_rocket_4f_160x107.webp")), animation.poster) > 60)
    }

    @Test(.enabled(if: webp, "needs the WebP trait"))
    func gifToWebPKeepsTransparencyAndTiming() throws {
        let animation = try Self.animation(Self.disposalGIF)
        let webp = try ImageEncoder(format: .webp, lossless: true).encode(animation)
        let decoded = try #require(try ImageDecoder().decodeAnimation(webp, resize: nil, allowsUpscaling: false, options: DecodingOptions()))
        #expect(decoded.frames.map(\.duration) == animation.frames.map(\.duration))
        for (frame, original) in zip(decoded.frames, animation.frames) {
            #expect(Self.differences(frame.image, original.image) == 0)
        }
    }

    @Test("Formats without animation refuse one by name")
    func stillFormatsRefuseAnimations() throws {
        let animation = try Self.animation(Self.disposalGIF)
        #expect { try ImageEncoder(format: .png).encode(animation) } throws: { error in
            guard case let ImageError.unsupportedFormat(format, _) = error else { return false }
            return format == .png
        }
    }
}
