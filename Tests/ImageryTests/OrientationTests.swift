import Testing
@testable import Imagery

@Suite struct OrientationTests {
    /// A 3×2 image whose pixel red value is its index: 0 1 2 / 3 4 5.
    let source = TestBitmaps.make(width: 3, height: 2) { x, y in RGBA(red: UInt8(y * 3 + x), green: 0, blue: 0) }

    @Test(arguments: [
        (ImageOrientation.up, [[0, 1, 2], [3, 4, 5]]),
        (.upMirrored, [[2, 1, 0], [5, 4, 3]]),
        (.down, [[5, 4, 3], [2, 1, 0]]),
        (.downMirrored, [[3, 4, 5], [0, 1, 2]]),
        (.leftMirrored, [[0, 3], [1, 4], [2, 5]]),
        (.right, [[3, 0], [4, 1], [5, 2]]),
        (.rightMirrored, [[5, 2], [4, 1], [3, 0]]),
        (.left, [[2, 5], [1, 4], [0, 3]]),
    ])
    func appliesEXIFOrientation(orientation: ImageOrientation, expected: [[Int]]) {
        var bitmap = source
        bitmap.orientation = orientation
        let upright = bitmap.oriented()
        #expect(upright.orientation == .up)
        #expect(upright.height == expected.count && upright.width == expected[0].count)
        let rows = (0..<upright.height).map { y in (0..<upright.width).map { x in Int(upright.pixel(x: x, y: y).red) } }
        #expect(rows == expected)
    }

    @Test func readsOrientationFromLittleAndBigEndianEXIF() {
        let little: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0]
        let big: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0]
        #expect(ExifReader.orientation(in: little) == .right)
        #expect(ExifReader.orientation(in: big) == .left)
    }

    @Test(arguments: [
        [UInt8](),
        [0x49, 0x49, 0x2A, 0, 0xFF, 0xFF, 0xFF, 0x7F],                    // IFD offset far past the end
        [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 0xFF, 0xFF],                    // 65,535 entries, no data
        [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 9, 0], // value 9 is not an orientation
        [0x41, 0x41, 0x2A, 0, 8, 0, 0, 0],                                // bad byte order
    ])
    func toleratesHostileEXIF(bytes: [UInt8]) {
        #expect(ExifReader.orientation(in: bytes) == nil)
    }
}
