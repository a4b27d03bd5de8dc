import Imagery

/// Small synthetic bitmaps for processing tests.
enum TestBitmaps {
    /// A bitmap whose pixel (x, y) is produced by `color`.
    static func make(width: Int, height: Int, alpha: AlphaMode = .opaque, _ color: (Int, Int) -> RGBA) -> Bitmap {
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let c = color(x, y)
                pixels += [c.red, c.green, c.blue, c.alpha]
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels, alphaMode: alpha)
    }
}
