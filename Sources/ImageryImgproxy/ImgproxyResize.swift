import Imagery

/// imgproxy's resizing types on a decoded bitmap, for the cases the decode stage's `Resize`
/// cannot express (force, auto, fill-down, min-width, zoom, and any resize after a crop or a
/// trim). The common cases (fit, and fill from the centre) resize while decoding instead, with
/// DCT scaling.
struct ImgproxyResize: ImageProcessing, Hashable {
    var type: ImgproxyOptions.ResizingType
    /// The box; 0 on one side means "from the other side".
    var width: Int
    var height: Int
    var enlarge: Bool
    var gravity: Gravity
    /// `min-width` and `min-height` in output pixels; 0 for none.
    var minWidth = 0
    var minHeight = 0
    /// `zoom` across and down.
    var zoomWidth = 1.0
    var zoomHeight = 1.0

    var identifier: String {
        var identifier = "imgproxy-resize(\(type.rawValue),\(width)x\(height),\(enlarge),\(gravity.identifier)"
        if isScaled { identifier += ",min\(minWidth)x\(minHeight),zoom\(zoomWidth)x\(zoomHeight)" }
        return identifier + ")"
    }

    /// Whether `min-width`, `min-height` or `zoom` change the scale the type gives.
    var isScaled: Bool { minWidth > 0 || minHeight > 0 || zoomWidth != 1 || zoomHeight != 1 }

    func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
        var image = image.prepared
        image.metadata.decodeScale = 1   // plans below are in this bitmap's own pixels
        let size = PixelSize(width: image.width, height: image.height)
        if isScaled { return try scaled(image) }
        guard width > 0 || height > 0 else { return image }
        guard width > 0, height > 0 else {
            let resize: Resize = width > 0 ? .width(width) : .height(height)
            return image.resampled(try Self.bounded(resize.plan(for: size, allowsUpscaling: enlarge)))
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

extension ImgproxyResize {
    /// imgproxy's own scale arithmetic, for when `min-width`, `min-height` or `zoom` adjust it:
    /// the type's scale, raised until the minimum sizes are met, multiplied by the zoom, then
    /// held at 1 unless enlarging; fill types then crop to the (zoomed) box.
    func scaled(_ image: Bitmap) throws(ImageError) -> Bitmap {
        try gravity.validate()
        let sourceWidth = Double(image.width), sourceHeight = Double(image.height)
        let (scale, resized, output) = scaledGeometry(for: PixelSize(width: image.width, height: image.height))
        // Held to the source: a scale so small that the output is held at one pixel would
        // otherwise read a window far wider than the image (and a resampler kernel as wide).
        let window = (width: min(sourceWidth, Double(output.width) / scale.x), height: min(sourceHeight, Double(output.height) / scale.y))
        var origin = (x: 0.0, y: 0.0)
        if output != resized {
            if gravity == .smart {
                let found = SmartCrop.origin(width: Int(window.width.rounded()), height: Int(window.height.rounded()), in: image)
                origin = (Double(found.x), Double(found.y))
            } else {
                origin = gravity.scaledOffsets(by: 1 / scale.x).origin(of: window, in: (sourceWidth, sourceHeight))
            }
            origin = (min(origin.x, sourceWidth - window.width), min(origin.y, sourceHeight - window.height))
        }
        return image.resampled(try Self.bounded(ResizePlan(
            outputSize: PixelSize(width: output.width, height: output.height),
            sourceRect: SourceRect(x: origin.x, y: origin.y, width: window.width, height: window.height)
        )))
    }

    /// `plan`, when its output is within ``ImgproxyLimits/maximumOutputPixels``.
    static func bounded(_ plan: ResizePlan) throws(ImageError) -> ResizePlan {
        guard plan.outputSize.pixelCount <= ImgproxyLimits.maximumOutputPixels else {
            throw .invalidRequest("the result would be \(plan.outputSize), more than \(ImgproxyLimits.maximumOutputPixels) pixels")
        }
        return plan
    }

    /// The scale and sizes ``scaled(_:)`` works with for a source of `size`: the type's scale,
    /// raised until the minimum sizes are met, multiplied by the zoom, then held at 1 unless
    /// enlarging; the resized size; and the output, cropped to the (zoomed) box for fill types.
    func scaledGeometry(for size: PixelSize) -> (scale: (x: Double, y: Double), resized: (width: Int, height: Int), output: (width: Int, height: Int)) {
        let sourceWidth = Double(size.width), sourceHeight = Double(size.height)
        let byWidth = Double(width) / sourceWidth, byHeight = Double(height) / sourceHeight
        var type = self.type
        if type == .auto { type = (size.width >= size.height) == (width >= height) ? .fill : .fit }
        var scale: (x: Double, y: Double)
        switch (width > 0, height > 0) {
        case (false, false): scale = (1, 1)
        case (true, false): scale = (byWidth, byWidth)
        case (false, true): scale = (byHeight, byHeight)
        case (true, true):
            switch type {
            case .force: scale = (byWidth, byHeight)
            case .fit: scale = (min(byWidth, byHeight), min(byWidth, byHeight))
            default: scale = (max(byWidth, byHeight), max(byWidth, byHeight))
            }
        }
        if minWidth > 0, sourceWidth * scale.x < Double(minWidth) {
            let raise = Double(minWidth) / (sourceWidth * scale.x)
            scale = (scale.x * raise, scale.y * raise)
        }
        if minHeight > 0, sourceHeight * scale.y < Double(minHeight) {
            let raise = Double(minHeight) / (sourceHeight * scale.y)
            scale = (scale.x * raise, scale.y * raise)
        }
        scale = (scale.x * zoomWidth, scale.y * zoomHeight)
        if !enlarge {
            if scale.x > 1 { scale = (1, scale.y / scale.x) }
            if scale.y > 1 { scale = (scale.x / scale.y, 1) }
        }
        let resized = (width: Self.side(sourceWidth * scale.x), height: Self.side(sourceHeight * scale.y))
        var output = resized
        if width > 0, height > 0, type == .fill || type == .fillDown {
            output = (min(resized.width, Self.side(Double(width) * zoomWidth)), min(resized.height, Self.side(Double(height) * zoomHeight)))
        }
        return (scale, resized, output)
    }

    /// A side in whole pixels, at least 1; held far below `Int`'s range (a source's sides and
    /// the scale are each bounded, their product only by the limits ``bounded(_:)`` enforces).
    private static func side(_ value: Double) -> Int {
        guard value.isFinite else { return value > 0 ? 1 << 40 : 1 }
        return max(1, Int(min(value, 0x1p40).rounded()))
    }
}
