import Testing
import ImageryCodecs
import Imagery
import ImageryTestSupport

/// Animations read and written a frame at a time: the stream yields what the collected decode
/// does, the writers write what the whole-animation encoders do, and bad input fails the same.
@Suite(.timeLimit(.minutes(10)))
struct AnimationStreamTests {
    static let rocket = "gif_anim_rocket_8f_160x107.gif"

    static func stream(_ bytes: [UInt8], resize: Resize? = .fit(width: 80, height: 80), options: DecodingOptions = DecodingOptions()) throws -> AnimationStream {
        let stream = try ImageDecoder().animationStream(bytes, resize: resize, allowsUpscaling: false, options: options)
        return try #require(stream, "decodes as an animation")
    }

    static func collect(_ stream: AnimationStream) async throws -> [AnimationFrame] {
        var frames = stream.frames()
        var collected: [AnimationFrame] = []
        while let frame = try await frames.next() { collected.append(frame) }
        return collected
    }

    @Test("A stream yields the collected decode's frames, poster first, and starts again each time it is read")
    func streamMatchesCollectedDecode() async throws {
        let bytes = try TestImages.bytes(Self.rocket)
        let whole = try #require(try ImageDecoder().decodeAnimation(bytes, resize: .fit(width: 80, height: 80), allowsUpscaling: false, options: DecodingOptions()))
        let stream = try Self.stream(bytes)
        #expect(stream.frameCount == 8 && stream.loopCount == whole.loopCount)
        #expect(stream.poster.pixels == whole.poster.pixels)
        #expect(stream.byteCount == stream.poster.pixels.count + bytes.count, "the poster and the source, not eight frames")
        let first = try await Self.collect(stream)
        #expect(first.map(\.image.pixels) == whole.frames.map(\.image.pixels))
        #expect(first.map(\.duration) == whole.frames.map(\.duration))
        let second = try await Self.collect(stream)
        #expect(second.map(\.image.pixels) == first.map(\.image.pixels))
    }

    @Test("Written frame by frame, a GIF is byte for byte the whole animation's encoding")
    func gifWriterMatchesWholeEncoding() async throws {
        let stream = try Self.stream(TestImages.bytes("gif_anim_disposal_trns_96x64.gif"), resize: nil)
        let frames = try await Self.collect(stream)
        let whole = try ImageEncoder(format: .gif).encode(AnimatedImage(frames: frames, loopCount: stream.loopCount))
        var writer = try ImageEncoder(format: .gif).animationWriter(loopCount: stream.loopCount)
        var read = stream.frames()
        while let frame = try await read.next() { try writer.add(frame) }
        let streamed = try writer.finish()
        #expect(streamed == whole)
        let back = try #require(try ImageDecoder().decodeAnimation(streamed, resize: nil, allowsUpscaling: false, options: DecodingOptions()))
        #expect(back.frames.count == frames.count)
        for (decoded, source) in zip(back.frames, frames) {
            // Transparent pixels stay transparent in every frame: the frame before never shows through.
            for y in 0..<source.image.height {
                for x in 0..<source.image.width where source.image.pixel(x: x, y: y).alpha == 0 {
                    #expect(decoded.image.pixel(x: x, y: y).alpha == 0)
                }
            }
        }
    }

    @Test("A writer refuses a frame of another size and an animation of no frames", arguments: [ImageFormat.gif, .webp])
    func writerRefusesBadFrames(format: ImageFormat) throws {
        guard ImageEncoder.animatedFormats.contains(format) else {
            #expect(throws: ImageError.self) { try ImageEncoder(format: format).animationWriter(loopCount: 0) }
            return
        }
        var writer = try ImageEncoder(format: format).animationWriter(loopCount: 0)
        try writer.add(AnimationFrame(image: Bitmap(width: 8, height: 8, filledWith: .black), duration: .milliseconds(100)))
        #expect(throws: ImageError.invalidRequest("an animation's frames must all be 8x8")) {
            try writer.add(AnimationFrame(image: Bitmap(width: 8, height: 9, filledWith: .black), duration: .milliseconds(100)))
        }
        var empty = try ImageEncoder(format: format).animationWriter(loopCount: 0)
        #expect(throws: ImageError.invalidRequest("an animation needs at least one frame")) { try empty.finish() }
    }

    @Test("Limits are checked when the stream is made; a damaged later frame fails a strict read and ends a lenient one")
    func limitsAndDamage() async throws {
        let bomb = try TestImages.bytes("gif_anim_bomb_2000x2000_3000f.gif")
        #expect(throws: ImageError.self) {
            try ImageDecoder().animationStream(bomb, resize: .fit(width: 64, height: 64), allowsUpscaling: false, options: DecodingOptions())
        }
        let bytes = try TestImages.bytes(Self.rocket)
        let cut = Array(bytes.prefix(bytes.count * 3 / 4))
        let strict = try Self.stream(cut)
        await #expect {
            _ = try await Self.collect(strict)
        } throws: { error in
            guard case .decodingFailed = error as? ImagePipelineError else { return false }
            return true
        }
        var lenient = DecodingOptions()
        lenient.policy = .lenient
        let frames = try await Self.collect(Self.stream(cut, options: lenient))
        #expect((1..<8).contains(frames.count))
    }

    @Test("A still is no stream")
    func stillIsNoStream() throws {
        #expect(try ImageDecoder().animationStream(Fixtures.rocket, resize: nil, allowsUpscaling: false, options: DecodingOptions()) == nil)
    }
}
