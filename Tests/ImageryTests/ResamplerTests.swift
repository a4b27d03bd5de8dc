import Testing
@testable import Imagery

@Suite struct ResamplerTests {
    @Test(arguments: [(97, 61, 13, 9), (40, 40, 40, 40), (300, 20, 7, 3), (5, 5, 1, 1), (64, 48, 33, 47)])
    func uniformImageStaysUniformUpToTheEdges(width: Int, height: Int, outWidth: Int, outHeight: Int) throws {
        // Given a flat colour, When resampled to any size, Then every output pixel keeps it:
        // edge weights are renormalised, not darkened or clamped away.
        let colour = RGBA(red: 200, green: 90, blue: 17)
        let source = Bitmap(width: width, height: height, filledWith: colour)
        let result = LanczosResampler.resample(
            source, sourceRect: SourceRect(x: 0, y: 0, width: Double(width), height: Double(height)),
            to: PixelSize(width: outWidth, height: outHeight)
        )
        for y in 0..<outHeight {
            for x in 0..<outWidth { #expect(result.pixel(x: x, y: y) == colour) }
        }
    }

    @Test func transparentPixelsDoNotBleedTheirColour() throws {
        // Given opaque blue next to fully transparent red, When reduced, Then no red appears:
        // filtering happens in premultiplied alpha.
        let source = TestBitmaps.make(width: 64, height: 8, alpha: .straight) { x, _ in
            x < 32 ? RGBA(red: 0, green: 0, blue: 255, alpha: 255) : RGBA(red: 255, green: 0, blue: 0, alpha: 0)
        }
        let result = try source.resized(.width(16))
        for x in 0..<16 {
            let p = result.pixel(x: x, y: 1)
            if p.alpha > 8 { #expect(p.red <= 2, "pixel \(x) is \(p)") }
        }
        #expect(result.pixel(x: 0, y: 0).alpha == 255)
        #expect(result.pixel(x: 15, y: 0).alpha == 0)
    }

    @Test func checkerboardAveragesToGrey() throws {
        let source = TestBitmaps.make(width: 256, height: 256) { x, y in (x + y) % 2 == 0 ? .white : .black }
        let result = try source.resized(.fit(width: 32, height: 32))
        #expect(result.width == 32 && result.height == 32)
        for y in 4..<28 {
            for x in 4..<28 { #expect(abs(Int(result.pixel(x: x, y: y).green) - 128) <= 2) }
        }
    }

    @Test func rampStaysMonotonicAndCentred() throws {
        // A horizontal ramp reduced 4× should stay a ramp, with each output near the mean of its 4 sources.
        let source = TestBitmaps.make(width: 256, height: 16) { x, _ in RGBA(red: UInt8(x), green: UInt8(x), blue: UInt8(x)) }
        let result = try source.resized(.width(64))
        var previous = -1
        for x in 0..<64 {
            let value = Int(result.pixel(x: x, y: 1).red)
            #expect(value >= previous)
            previous = value
            if x > 2 && x < 61 { #expect(abs(value - (x * 4 + 1)) <= 1, "x \(x): \(value)") }
        }
    }

    @Test func boxReducerAveragesBlocksIncludingPartialEdges() {
        // 5×3 source, factor 2: blocks are 2×2 except the right column (1 wide) and bottom row (1 high).
        let source = TestBitmaps.make(width: 5, height: 3) { x, y in RGBA(red: UInt8(x * 10 + y), green: 0, blue: 0) }
        let reducer = BoxReducer(sourceWidth: 5, sourceHeight: 3, factor: 2, hasAlpha: false)
        source.pixels.withUnsafeBufferPointer { reducer.consume(rows: $0.baseAddress!, bytesPerRow: 20, count: 3) }
        #expect(reducer.isComplete)
        let out = reducer.finish()
        #expect(out.count == 3 * 2 * 4)
        #expect(out[0] == 6)            // mean of 0, 1, 10, 11 = 5.5 → 6
        #expect(out[2 * 4] == 41)       // mean of 40, 41 = 40.5 → 41
        #expect(out[3 * 4] == 7)        // bottom-left: mean of 2, 12
        #expect(out[5 * 4] == 42)       // bottom-right: 42 alone
    }

    @Test func draftDecodeScaleKeepsTheOriginalGrid() throws {
        // A bitmap that claims to be a 1/4-scale draft of a 400-wide original plans against 400 px.
        var draft = TestBitmaps.make(width: 100, height: 50) { x, _ in RGBA(red: UInt8(x * 2), green: 0, blue: 0) }
        draft.metadata = ImageMetadata(format: nil, originalWidth: 400, originalHeight: 200, decodeScale: 0.25)
        let result = try draft.resized(.width(50))
        #expect(result.width == 50 && result.height == 25)
        #expect(result.metadata.decodeScale == 1)
        #expect(abs(Int(result.pixel(x: 25, y: 10).red) - 101) <= 2)
    }
}
