import Testing
import Imagery

@Suite struct ResizePlanTests {
    @Test(arguments: [
        (Resize.fit(width: 256, height: 256), PixelSize(width: 6028, height: 3391), PixelSize(width: 256, height: 144)),
        (.fit(width: 256, height: 256), PixelSize(width: 1600, height: 2560), PixelSize(width: 160, height: 256)),
        (.fit(width: 256, height: 256), PixelSize(width: 100, height: 80), PixelSize(width: 100, height: 80)),
        (.fill(width: 200, height: 100), PixelSize(width: 1000, height: 1000), PixelSize(width: 200, height: 100)),
        (.fill(width: 400, height: 400), PixelSize(width: 300, height: 200), PixelSize(width: 200, height: 200)),
        (.width(320), PixelSize(width: 640, height: 427), PixelSize(width: 320, height: 214)),
        (.width(1000), PixelSize(width: 640, height: 427), PixelSize(width: 640, height: 427)),
        (.height(100), PixelSize(width: 400, height: 200), PixelSize(width: 200, height: 100)),
    ])
    func outputSize(resize: Resize, source: PixelSize, expected: PixelSize) throws {
        // Given a source, When planned without upscaling, Then the output size is as documented.
        let plan = try resize.plan(for: source)
        #expect(plan.outputSize == expected)
        #expect(plan.scale <= 1.0001)
    }

    @Test func fillCropsTheCentre() throws {
        let plan = try Resize.fill(width: 100, height: 100).plan(for: PixelSize(width: 400, height: 200))
        #expect(plan.outputSize == PixelSize(width: 100, height: 100))
        #expect(plan.sourceRect == SourceRect(x: 100, y: 0, width: 200, height: 200))
    }

    @Test func upscalingOnlyWhenAsked() throws {
        let plan = try Resize.fit(width: 200, height: 200).plan(for: PixelSize(width: 100, height: 50), allowsUpscaling: true)
        #expect(plan.outputSize == PixelSize(width: 200, height: 100))
    }

    @Test(arguments: [Resize.fit(width: 0, height: 10), .fill(width: 10, height: -1), .width(0), .height(-5)])
    func invalidTargetsThrow(resize: Resize) {
        #expect(throws: ImageError.self) { try resize.plan(for: PixelSize(width: 10, height: 10)) }
    }
}
