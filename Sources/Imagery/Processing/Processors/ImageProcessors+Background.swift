extension ImageProcessors {
    /// Composites the image over a colour, which removes its alpha: what a JPEG of a logo
    /// needs.
    ///
    /// ```swift
    /// request.processors = [.background(.white)]
    /// ```
    public struct Background: ImageProcessing, InPlaceImageProcessing, Hashable {
        /// The colour behind the image (its own alpha is ignored: the result is opaque).
        public var color: RGBA

        /// A flatten onto `color`.
        public init(color: RGBA) {
            self.color = color
        }

        public var identifier: String { "background(\(color.identifier))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            var image = image
            process(&image)
            return image
        }

        package func process(_ image: inout Bitmap) {
            image.prepare()
            image.flatten(over: RGBA(red: color.red, green: color.green, blue: color.blue))
        }
    }

    /// Extends the image to at least `width` × `height` with a colour, placing the image by
    /// a ``Gravity`` (``Gravity/smart`` places it in the centre). An image larger than the
    /// box on an axis keeps its size on that axis; nothing is cropped.
    ///
    /// ```swift
    /// request.processors = [.pad(width: 512, height: 512, color: .white)]
    /// ```
    public struct Pad: ImageProcessing, Hashable {
        /// The box's width in pixels.
        public var width: Int
        /// The box's height in pixels.
        public var height: Int
        /// The colour of the added area; a translucent one leaves the result with alpha.
        public var color: RGBA
        /// Where the image sits in the box.
        public var gravity: Gravity

        /// A pad to `width` × `height` with `color`.
        public init(width: Int, height: Int, color: RGBA, gravity: Gravity = .center) {
            self.width = width
            self.height = height
            self.color = color
            self.gravity = gravity
        }

        public var identifier: String { "pad(\(width)x\(height),\(color.identifier),\(gravity.identifier))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            guard width > 0, height > 0 else { throw .invalidRequest("pad \(width)x\(height) must be positive") }
            try gravity.validate()
            let image = image.prepared
            let outWidth = max(width, image.width), outHeight = max(height, image.height)
            guard outWidth != image.width || outHeight != image.height else { return image }
            guard outWidth.multipliedReportingOverflow(by: outHeight).partialValue <= 1 << 30 else {
                throw .invalidRequest("pad \(width)x\(height) is larger than 2^30 pixels")
            }
            let placed = (gravity == .smart ? Gravity.center : gravity).origin(
                of: (Double(image.width), Double(image.height)), in: (Double(outWidth), Double(outHeight))
            )
            return image.placed(width: outWidth, height: outHeight, x: Int(placed.x.rounded(.down)), y: Int(placed.y.rounded(.down)), color: color)
        }
    }
}

extension Bitmap {
    /// This image (upright, straight alpha) at `x`, `y` on a `width` × `height` canvas of `color`,
    /// which must hold it.
    func placed(width: Int, height: Int, x x0: Int, y y0: Int, color: RGBA) -> Bitmap {
        var result = Bitmap(width: width, height: height, filledWith: color, metadata: metadata)
        if alphaMode != .opaque { result.alphaMode = .straight }
        result.pixels.withUnsafeMutableBytes { out in
            pixels.withUnsafeBytes { source in
                for row in 0..<self.height {
                    (out.baseAddress! + ((y0 + row) * width + x0) * 4)
                        .copyMemory(from: source.baseAddress! + row * bytesPerRow, byteCount: self.width * 4)
                }
            }
        }
        result.metadata.decodeScale = 1
        return result
    }
}

extension ImageProcessing where Self == ImageProcessors.Background {
    /// The image composited over `color`, opaque.
    ///
    /// ```swift
    /// request.processors = [.background(.white)]
    /// ```
    public static func background(_ color: RGBA) -> Self { Self(color: color) }
}

extension ImageProcessing where Self == ImageProcessors.Pad {
    /// The image extended to `width` × `height` with `color`, placed by `gravity`.
    ///
    /// ```swift
    /// request.processors = [.pad(width: 512, height: 512, color: .white)]
    /// ```
    public static func pad(width: Int, height: Int, color: RGBA, gravity: Gravity = .center) -> Self {
        Self(width: width, height: height, color: color, gravity: gravity)
    }
}
