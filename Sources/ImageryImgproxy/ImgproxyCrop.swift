import Imagery

/// imgproxy's `crop`, applied to the source before resizing: a size in pixels, or a fraction
/// of the source's side when at most 1; 0 keeps that side whole.
struct ImgproxyCrop: ImageProcessing, Hashable {
    var width: Double
    var height: Double
    var gravity: Gravity

    var identifier: String { "imgproxy-crop(\(width)x\(height),\(gravity.identifier))" }

    func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
        let image = image.prepared
        let window = window(in: PixelSize(width: image.width, height: image.height))
        return try ImageProcessors.Crop(width: window.width, height: window.height, gravity: gravity).process(image)
    }

    /// The window cut from an upright image of `size`.
    func window(in size: PixelSize) -> PixelSize {
        func side(_ value: Double, of length: Int) -> Int {
            let pixels = value == 0 ? Double(length) : value <= 1 ? value * Double(length) : value
            return min(length, max(1, Int(pixels.rounded())))
        }
        return PixelSize(width: side(width, of: size.width), height: side(height, of: size.height))
    }
}
