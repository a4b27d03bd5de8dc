import Imagery

/// imgproxy's resizing types on a decoded bitmap, for the cases the decode stage's `Resize`
/// cannot express (force, auto, fill-down, and any resize after a crop). The common cases
/// (fit, and fill from the centre) resize while decoding instead, with DCT scaling.
struct ImgproxyResize: ImageProcessing, Hashable {
    var type: ImgproxyOptions.ResizingType
    /// The box; 0 on one side means "from the other side".
    var width: Int
    var height: Int
    var enlarge: Bool
    var gravity: Gravity

    var identifier: String { "imgproxy-resize(\(type.rawValue),\(width)x\(height),\(enlarge),\(gravity.identifier))" }

    func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
        var image = image.prepared
        image.metadata.decodeScale = 1   // plans below are in this bitmap's own pixels
        let size = PixelSize(width: image.width, height: image.height)
        guard width > 0 || height > 0 else { return image }
        guard width > 0, height > 0 else {
            let resize: Resize = width > 0 ? .width(width) : .height(height)
            return image.resampled(try resize.plan(for: size, allowsUpscaling: enlarge))
        }
        switch type {
        case .fit:
            return image.resampled(try Resize.fit(width: width, height: height).plan(for: size, allowsUpscaling: enlarge))
        case .fill:
            return try ImageProcessors.Fill(width: width, height: height, gravity: gravity, allowsUpscaling: enlarge).process(image)
        case .auto:
            // Fill when the image and the box face the same way, fit when they do not.
            let sameOrientation = (size.width >= size.height) == (width >= height)
            var same = self
            same.type = sameOrientation ? .fill : .fit
            return try same.process(image)
        case .fillDown:
            // Never enlarged: a source smaller than the box gets the box's aspect ratio at
            // the largest size it can give.
            let shrink = min(1, Double(size.width) / Double(width), Double(size.height) / Double(height))
            let outWidth = max(1, Int((Double(width) * shrink).rounded()))
            let outHeight = max(1, Int((Double(height) * shrink).rounded()))
            return try ImageProcessors.Fill(width: outWidth, height: outHeight, gravity: gravity, allowsUpscaling: false).process(image)
        case .force:
            let plan = ResizePlan(
                outputSize: PixelSize(width: width, height: height),
                sourceRect: SourceRect(x: 0, y: 0, width: Double(size.width), height: Double(size.height))
            )
            return image.resampled(plan)
        }
    }
}
