import Imagery
import Testing

@Suite("Processors: edge cases, alpha and identifiers", .timeLimit(.minutes(10)))
struct ProcessorTests {
    static let gradient = TestBitmaps.make(width: 40, height: 30) { x, y in
        RGBA(red: UInt8(x * 6), green: UInt8(y * 8), blue: 100)
    }
    static let single = Bitmap(width: 1, height: 1, filledWith: RGBA(red: 10, green: 20, blue: 30))

    static let builtIns: [any ImageProcessing] = [
        .crop(width: 10, height: 10), .crop(width: 10, height: 10, gravity: .smart),
        .fill(width: 8, height: 8), .fill(width: 8, height: 8, gravity: .smart), .rotate(degrees: 90),
        .flip(.horizontal), .blur(sigma: 2), .blur(sigma: 20), .sharpen(), .roundedCorners(4), .circle,
        .background(.white), .pad(width: 5, height: 5, color: .white), .pixelate(4),
        .padding(top: 0, right: 0, bottom: 0, left: 0, color: .white),
    ]

    @Test("Every built-in processor takes a 1x1 image and returns a 1x1 image (a pad, its 5x5 box)")
    func singlePixel() throws {
        for processor in Self.builtIns {
            let result = try processor.process(Self.single)
            // A pad extends to its 5x5 box; everything else keeps the one pixel.
            let side = processor.identifier.hasPrefix("pad(") ? 5 : 1
            #expect(result.width == side && result.height == side, "\(processor.identifier): \(result.width)x\(result.height)")
        }
    }

    @Test("Padding places the image at its left and top offsets; pixelate averages blocks, weighted by alpha")
    func paddingAndPixelate() throws {
        let padded = try ImageProcessors.Padding(top: 3, right: 1, bottom: 2, left: 4, color: RGBA(red: 0, green: 0, blue: 0, alpha: 0))
            .process(Self.gradient)
        #expect(padded.width == 45 && padded.height == 35 && padded.alphaMode == .straight)
        #expect(padded.pixel(x: 4, y: 3) == Self.gradient.pixel(x: 0, y: 0) && padded.pixel(x: 43, y: 32) == Self.gradient.pixel(x: 39, y: 29))
        #expect(padded.pixel(x: 3, y: 3).alpha == 0 && padded.pixel(x: 44, y: 34).alpha == 0)
        #expect(throws: ImageError.self) { try ImageProcessors.Padding(top: -1, right: 0, bottom: 0, left: 0, color: .white).process(Self.gradient) }

        let blocks = try ImageProcessors.Pixelate(size: 10).process(Self.gradient)
        #expect(blocks.pixel(x: 0, y: 0) == blocks.pixel(x: 9, y: 9) && blocks.pixel(x: 0, y: 0) != blocks.pixel(x: 10, y: 0))
        // The block's mean: x 0-9 gives red 0-54 (mean 27), y 0-9 green 0-72 (mean 36).
        #expect(blocks.pixel(x: 5, y: 5) == RGBA(red: 27, green: 36, blue: 100))
        // A transparent pixel lends no colour to its block.
        var half = Bitmap(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 0, 255, 0], alphaMode: .straight)
        half = try ImageProcessors.Pixelate(size: 2).process(half)
        #expect(half.pixel(x: 1, y: 0) == RGBA(red: 255, green: 0, blue: 0, alpha: 128))
        #expect(throws: ImageError.self) { try ImageProcessors.Pixelate(size: 0).process(Self.gradient) }
    }

    @Test("Sigma 0 returns the image; a negative or infinite sigma is refused")
    func sigmaZero() throws {
        #expect(try ImageProcessors.GaussianBlur(sigma: 0).process(Self.gradient) == Self.gradient)
        #expect(try ImageProcessors.Sharpen(sigma: 0).process(Self.gradient) == Self.gradient)
        for sigma in [-1, Double.infinity, .nan] {
            #expect(throws: ImageError.self) { try ImageProcessors.GaussianBlur(sigma: sigma).process(Self.gradient) }
        }
    }

    @Test("A crop larger than the image keeps the whole image on that axis")
    func oversizedCrop() throws {
        let result = try ImageProcessors.Crop(width: 500, height: 10, gravity: .south).process(Self.gradient)
        #expect(result.width == 40 && result.height == 10)
        #expect(result.pixel(x: 0, y: 0) == Self.gradient.pixel(x: 0, y: 20))
    }

    @Test("Zero sizes, bad focus points and odd angles are refused with a clear error")
    func refusals() {
        let cases: [any ImageProcessing] = [
            .crop(width: 0, height: 5), .crop(width: 5, height: 5, gravity: .focus(x: 1.5, y: 0)),
            .fill(width: -1, height: 5), .rotate(degrees: 45), .pad(width: 0, height: 3, color: .white),
            .roundedCorners(-2), .sharpen(sigma: 1, amount: -1),
        ]
        for processor in cases {
            #expect(throws: ImageError.self, "\(processor.identifier)") { try processor.process(Self.gradient) }
        }
    }

    @Test("A huge radius makes a capsule, not a crash")
    func hugeRadius() throws {
        let capsule = try ImageProcessors.RoundedCorners(radius: 1e9).process(Self.gradient)
        #expect(capsule.pixel(x: 0, y: 0).alpha == 0)
        #expect(capsule.pixel(x: 20, y: 0).alpha > 200)   // the top edge at the middle is inside
        #expect(capsule.pixel(x: 20, y: 15).alpha == 255)
        #expect(capsule.pixel(x: 0, y: 15).alpha > 200)   // the capsule's end reaches the left edge
    }

    @Test("Corner alpha is anti-aliased and symmetric")
    func cornerAlpha() throws {
        let square = Bitmap(width: 32, height: 32, filledWith: .white)
        let rounded = try ImageProcessors.RoundedCorners(radius: 8).process(square)
        let partial = (0..<32).contains { rounded.pixel(x: $0, y: 1).alpha > 0 && rounded.pixel(x: $0, y: 1).alpha < 255 }
        #expect(partial)
        for (x, y) in [(0, 0), (2, 1), (5, 3)] {
            let a = rounded.pixel(x: x, y: y).alpha
            #expect(rounded.pixel(x: 31 - x, y: y).alpha == a)
            #expect(rounded.pixel(x: x, y: 31 - y).alpha == a)
            #expect(rounded.pixel(x: y, y: x).alpha == a)
        }
        #expect(rounded.pixel(x: 16, y: 0).alpha == 255)
    }

    @Test("Blurring next to transparent pixels does not tint the colour", arguments: [1.5, 12])
    func blurKeepsColourAtAlphaEdges(sigma: Double) throws {
        // Left half opaque red, right half fully transparent *green*: green must never bleed in.
        let image = TestBitmaps.make(width: 40, height: 20, alpha: .straight) { x, _ in
            x < 20 ? RGBA(red: 255, green: 0, blue: 0) : RGBA(red: 0, green: 255, blue: 0, alpha: 0)
        }
        let blurred = try ImageProcessors.GaussianBlur(sigma: sigma).process(image)
        #expect(blurred.alphaMode == .straight)
        for x in 0..<40 {
            let p = blurred.pixel(x: x, y: 10)
            if p.alpha > 8 { #expect(p.green <= 2 && p.red >= 250, "x \(x): \(p)") }
        }
        #expect(blurred.pixel(x: 19, y: 10).alpha < 255 && blurred.pixel(x: 20, y: 10).alpha > 0)
    }

    @Test("Blur keeps a flat image flat, to the edges", arguments: [0.7, 2, 9, 50])
    func flatStaysFlat(sigma: Double) throws {
        let flat = Bitmap(width: 64, height: 48, filledWith: RGBA(red: 90, green: 140, blue: 200))
        let blurred = try ImageProcessors.GaussianBlur(sigma: sigma).process(flat)
        #expect(blurred.packedPixels == flat.packedPixels)
    }

    @Test("Sharpening an opaque image (integer path) matches the general path within one level",
          arguments: [(1.0, 1.0, 0), (1.5, 0.7, 3), (0.8, 2.5, 0)])
    func opaqueSharpenPath(sigma: Double, amount: Double, threshold: Int) throws {
        // 37 wide, so rows end inside a group of four pixels; a busy texture, so the mask and
        // the clamping both act.
        let texture = { (x: Int, y: Int) in
            RGBA(red: UInt8((x * 37 + y * 11) % 256), green: UInt8((x * y * 7) % 256), blue: UInt8((x + 3 * y) * 5 % 256))
        }
        let opaque = TestBitmaps.make(width: 37, height: 23, texture)
        let straight = TestBitmaps.make(width: 37, height: 23, alpha: .straight, texture)   // alpha 255, general path
        let sharpen = ImageProcessors.Sharpen(sigma: sigma, amount: amount, threshold: threshold)
        let fast = try sharpen.process(opaque), general = try sharpen.process(straight)
        #expect(fast.alphaMode == .opaque)
        var largest = 0
        for (a, b) in zip(fast.pixels, general.pixels) { largest = max(largest, abs(Int(a) - Int(b))) }
        #expect(largest <= 1, "largest difference \(largest)")
        #expect(fast != opaque, "sharpening should change a textured image")
    }

    @Test("Smart crop finds the detailed region of a flat image")
    func smartCrop() throws {
        // A flat grey 300x200 image with a checkerboard patch at (220...259, 20...59).
        let image = TestBitmaps.make(width: 300, height: 200) { x, y in
            let inPatch = (220..<260).contains(x) && (20..<60).contains(y)
            let value: UInt8 = inPatch ? (((x / 4) + (y / 4)) % 2 == 0 ? 0 : 255) : 128
            return RGBA(red: value, green: value, blue: value)
        }
        let crop = try ImageProcessors.Crop(width: 60, height: 60, gravity: .smart).process(image)
        // The window holds the whole patch: count its dark pixels.
        var dark = 0
        for y in 0..<60 { for x in 0..<60 where crop.pixel(x: x, y: y).red == 0 { dark += 1 } }
        #expect(dark == 800)
        // A flat image crops like the centre.
        let flat = Bitmap(width: 100, height: 50, filledWith: .white)
        let centre = try ImageProcessors.Crop(width: 20, height: 20, gravity: .smart).process(flat)
        #expect(centre.width == 20)
    }

    @Test("Fill with a gravity keeps that side of the image")
    func fillGravity() throws {
        // Top half black, bottom half white; fill to a wide box keeps the top with .north.
        let image = TestBitmaps.make(width: 100, height: 200) { _, y in y < 100 ? RGBA(red: 0, green: 0, blue: 0) : .white }
        let north = try ImageProcessors.Fill(width: 50, height: 25, gravity: .north).process(image)
        let south = try ImageProcessors.Fill(width: 50, height: 25, gravity: .south).process(image)
        #expect(north.width == 50 && north.height == 25)
        #expect(north.pixel(x: 25, y: 12).red < 5)
        #expect(south.pixel(x: 25, y: 12).red > 250)
    }

    @Test("Identifiers are stable, name every parameter, and keep the order")
    func identifiers() {
        #expect(ImageProcessors.GaussianBlur(sigma: 8).identifier == "blur(8.0)")
        #expect(ImageProcessors.Crop(width: 3, height: 4, gravity: .focus(x: 0.25, y: 0.5)).identifier == "crop(3x4,fp:0.25:0.5)")
        let a: [any ImageProcessing] = [.blur(sigma: 2), .circle]
        let b: [any ImageProcessing] = [.circle, .blur(sigma: 2)]
        var first = ImageRequest(source: .custom(id: "x") { [] }), second = first
        first.processors = a
        second.processors = b
        let pipeline = ImagePipeline(configuration: .init(decoder: NoDecoder()))
        #expect(pipeline.cacheKey(for: first) != pipeline.cacheKey(for: second))
        #expect(pipeline.cacheKey(for: first).processors == "blur(2.0)|circle")
    }

    @Test("An async closure refuses to run synchronously, with its id in the error")
    func asyncClosureRefusesSync() async throws {
        let processor = ImageProcessors.AsyncClosure(id: "later") { $0 }
        #expect(throws: ImageError.processorFailed(identifier: "custom(later)", detail: "it awaits: run it through ImagePipeline or process(_:context:)")) {
            try processor.process(Self.single)
        }
        let context = ImageProcessingContext(request: ImageRequest(source: .custom(id: "x") { [] }))
        #expect(try await processor.process(Self.single, context: context) == Self.single)
    }

    @Test("A closure's own error is reported as processorFailed naming it")
    func closureErrors() {
        struct Oops: Error {}
        let processor = ImageProcessors.Closure(id: "oops") { _ in throw Oops() }
        #expect {
            try processor.process(Self.single)
        } throws: { error in
            guard case let .processorFailed(identifier, _) = error as? ImageError else { return false }
            return identifier == "custom(oops)"
        }
    }
}

/// A decoder for pipelines that never decode (key tests).
private struct NoDecoder: ImageDecoding {
    func decode(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> Bitmap { throw .emptyData }
}
