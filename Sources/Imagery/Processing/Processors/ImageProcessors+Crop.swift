extension ImageProcessors {
    /// Cuts a `width` × `height` window out of the image, placed by a ``Gravity``.
    ///
    /// A window larger than the image on an axis keeps the whole image on that axis (the
    /// result is never padded: add ``ImageProcessors/Pad`` for that).
    ///
    /// ```swift
    /// request.processors = [.crop(width: 300, height: 300, gravity: .smart)]
    /// ```
    public struct Crop: ImageProcessing, Hashable {
        /// The window's width in pixels.
        public var width: Int
        /// The window's height in pixels.
        public var height: Int
        /// Where the window sits.
        public var gravity: Gravity

        /// A crop to `width` × `height` placed by `gravity`.
        public init(width: Int, height: Int, gravity: Gravity = .center) {
            self.width = width
            self.height = height
            self.gravity = gravity
        }

        public var identifier: String { "crop(\(width)x\(height),\(gravity.identifier))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            guard width > 0, height > 0 else { throw .invalidRequest("crop \(width)x\(height) must be positive") }
            try gravity.validate()
            let image = image.prepared
            let window = (width: min(width, image.width), height: min(height, image.height))
            let origin: (x: Int, y: Int)
            if gravity == .smart {
                origin = SmartCrop.origin(width: window.width, height: window.height, in: image)
            } else {
                let exact = gravity.origin(
                    of: (Double(window.width), Double(window.height)),
                    in: (Double(image.width), Double(image.height))
                )
                origin = (Int(exact.x.rounded(.down)), Int(exact.y.rounded(.down)))
            }
            return image.cropped(x: origin.x, y: origin.y, width: window.width, height: window.height)
        }
    }

    /// Scales the image to cover `width` × `height` and crops the overflow, placed by a
    /// ``Gravity``, in one resampling pass (``Gravity/smart`` looks at the image first).
    ///
    /// A source smaller than the box gives the largest window of the box's aspect ratio,
    /// unscaled, unless `allowsUpscaling` is set, as with ``Resize/fill(width:height:)``.
    ///
    /// ```swift
    /// request.processors = [.fill(width: 400, height: 300, gravity: .north)]
    /// ```
    public struct Fill: ImageProcessing, Hashable {
        /// The box's width in pixels.
        public var width: Int
        /// The box's height in pixels.
        public var height: Int
        /// Where the window sits in the scaled image.
        public var gravity: Gravity
        /// Whether a smaller source is enlarged to the box.
        public var allowsUpscaling: Bool

        /// A fill of `width` × `height` placed by `gravity`.
        public init(width: Int, height: Int, gravity: Gravity = .center, allowsUpscaling: Bool = false) {
            self.width = width
            self.height = height
            self.gravity = gravity
            self.allowsUpscaling = allowsUpscaling
        }

        public var identifier: String { "fill(\(width)x\(height),\(gravity.identifier)\(allowsUpscaling ? ",upscaling" : ""))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            try gravity.validate()
            var image = image.prepared
            image.metadata.decodeScale = 1   // the plan below is in this bitmap's own pixels
            let size = PixelSize(width: image.width, height: image.height)
            var plan = try Resize.fill(width: width, height: height).plan(for: size, allowsUpscaling: allowsUpscaling)
            let window = (width: plan.sourceRect.width, height: plan.sourceRect.height)
            if gravity == .smart {
                let cropWidth = Int(window.width.rounded()), cropHeight = Int(window.height.rounded())
                let origin = SmartCrop.origin(width: cropWidth, height: cropHeight, in: image)
                plan.sourceRect.x = min(Double(origin.x), Double(image.width) - window.width)
                plan.sourceRect.y = min(Double(origin.y), Double(image.height) - window.height)
            } else {
                // Offsets are in output pixels; the window is placed in source pixels.
                let origin = gravity.scaledOffsets(by: 1 / plan.scale).origin(of: window, in: (Double(image.width), Double(image.height)))
                plan.sourceRect.x = origin.x
                plan.sourceRect.y = origin.y
            }
            return image.resampled(plan)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Crop {
    /// A crop to `width` × `height` placed by `gravity` (default: the centre).
    ///
    /// ```swift
    /// request.processors = [.crop(width: 300, height: 300, gravity: .smart)]
    /// ```
    public static func crop(width: Int, height: Int, gravity: Gravity = .center) -> Self {
        Self(width: width, height: height, gravity: gravity)
    }
}

extension ImageProcessing where Self == ImageProcessors.Fill {
    /// Scales to cover `width` × `height` and crops the rest away, placed by `gravity`.
    ///
    /// ```swift
    /// request.processors = [.fill(width: 400, height: 300, gravity: .smart)]
    /// ```
    public static func fill(width: Int, height: Int, gravity: Gravity = .center, allowsUpscaling: Bool = false) -> Self {
        Self(width: width, height: height, gravity: gravity, allowsUpscaling: allowsUpscaling)
    }
}

extension Bitmap {
    /// The `width` × `height` region at (`x`, `y`), which must lie inside the image.
    package func cropped(x: Int, y: Int, width: Int, height: Int) -> Bitmap {
        precondition(x >= 0 && y >= 0 && x + width <= self.width && y + height <= self.height, "crop outside the image")
        if x == 0, y == 0, width == self.width, height == self.height { return self }
        var out = [UInt8](repeating: 0, count: width * height * 4)
        out.withUnsafeMutableBytes { out in
            pixels.withUnsafeBytes { source in
                for row in 0..<height {
                    let from = source.baseAddress! + (y + row) * bytesPerRow + x * 4
                    (out.baseAddress! + row * width * 4).copyMemory(from: from, byteCount: width * 4)
                }
            }
        }
        var result = Bitmap(width: width, height: height, pixels: out, alphaMode: alphaMode, metadata: metadata)
        result.metadata.decodeScale = 1
        return result
    }
}
