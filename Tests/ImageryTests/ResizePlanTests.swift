import Testing
@testable import Imagery

@Suite struct ResizePlanTests {
    @Test func fitKeepsAspect() throws {
        let plan = try Resize.fit(width: 256, height: 256).plan(for: PixelSize(width: 6028, height: 3391))
        #expect(plan.outputSize == PixelSize(width: 256, height: 144))
    }
}
