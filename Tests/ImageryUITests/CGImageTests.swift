import Foundation
@testable import Imagery
import ImageryUI
import Testing
#if canImport(CoreGraphics)
import CoreGraphics
#else
import CoreGraphicsStub
#endif

@Suite
struct CGImageTests {
    @Test("makeCGImage copies the pixels into a buffer the image owns, and a changed bitmap does not change the image")
    func ownsItsPixels() throws {
        var bitmap = Bitmap(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 0, 255, 255], alphaMode: .opaque)
        let image = try #require(bitmap.makeCGImage())
        #expect(image.width == 2 && image.height == 1 && image.bytesPerRow == 8)
        bitmap.pixels[0] = 7
        // Core Graphics reads the provider's buffer, which the bitmap's later changes never touch.
        #expect(image.dataProvider?.data.map { Array($0 as Data) } == [255, 0, 0, 255, 0, 0, 255, 255])
    }
}
