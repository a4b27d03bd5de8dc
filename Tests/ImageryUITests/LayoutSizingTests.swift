import Imagery
import ImageryUI
import Testing

@Suite
struct LayoutSizingTests {
    private let request = ImageRequest(source: .custom(id: "photo") { [] })

    @Test("A request without a size gets the laid-out box times the display scale, rounded up")
    func sizedToLayout() throws {
        #expect(request.sized(toWidth: 120, height: 80, scale: 3)?.resize == .fill(width: 360, height: 240))
        #expect(request.sized(toWidth: 100.2, height: 50, scale: 2, fit: .fit)?.resize == .fit(width: 201, height: 100))
    }

    @Test("A request with its own size keeps it; a box not yet laid out gives no request")
    func keepsOwnSizeAndWaitsForLayout() {
        var sized = request
        sized.resize = .width(64)
        #expect(sized.sized(toWidth: 300, height: 300, scale: 2)?.resize == .width(64))
        #expect(request.sized(toWidth: 0, height: 100, scale: 2) == nil)
        #expect(request.sized(toWidth: .infinity, height: 100, scale: 2) == nil)
        #expect(request.sized(toWidth: .nan, height: 100, scale: 2) == nil)
    }
}
