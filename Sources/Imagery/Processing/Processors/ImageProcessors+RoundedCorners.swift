extension ImageProcessors {
    /// Makes the corners transparent along quarter circles of ``radius`` pixels,
    /// anti-aliased in alpha (each edge pixel's alpha is the part of it inside the shape).
    ///
    /// A radius over half the shorter side is reduced to it, so a square becomes a circle
    /// and a rectangle a capsule.
    ///
    /// ```swift
    /// request.processors = [.roundedCorners(12)]
    /// ```
    public struct RoundedCorners: ImageProcessing, InPlaceImageProcessing, Hashable {
        /// The corner radius, in pixels.
        public var radius: Double

        /// Corners of `radius` pixels.
        public init(radius: Double) {
            self.radius = radius
        }

        public var identifier: String { "rounded(\(radius))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            var image = image
            try process(&image)
            return image
        }

        package func process(_ image: inout Bitmap) throws(ImageError) {
            guard radius.isFinite, radius >= 0 else { throw .invalidRequest("corner radius \(radius) must be 0 or more") }
            image.prepare()
            let radius = min(radius, Double(min(image.width, image.height)) / 2)
            guard radius > 0 else { return }
            image.mask(cornerRadius: radius)
        }
    }

    /// Crops the centre square and makes everything outside its inscribed circle
    /// transparent, anti-aliased in alpha: an avatar.
    ///
    /// ```swift
    /// request.processors = [.circle]
    /// ```
    public struct Circle: ImageProcessing, Hashable {
        /// The circle processor.
        public init() {}

        public var identifier: String { "circle" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            let side = min(image.displaySize.width, image.displaySize.height)
            var square = try Crop(width: side, height: side).process(image)
            square.mask(cornerRadius: Double(side) / 2)
            return square
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.RoundedCorners {
    /// Corners rounded to `radius` pixels.
    ///
    /// ```swift
    /// request.processors = [.roundedCorners(12)]
    /// ```
    public static func roundedCorners(_ radius: Double) -> Self { Self(radius: radius) }
}

extension ImageProcessing where Self == ImageProcessors.Circle {
    /// The centre square masked to a circle.
    ///
    /// ```swift
    /// request.processors = [.circle]
    /// ```
    public static var circle: Self { Self() }
}

extension Bitmap {
    /// The upright, straight-alpha image with its corners cut along quarter circles.
    fileprivate mutating func mask(cornerRadius radius: Double) {
        let bytesPerRow = self.bytesPerRow
        // Coverage is sampled on a 4×4 grid inside each pixel: exact enough for 8-bit
        // alpha at edges (steps of 1/16) and the same at any radius.
        let samples = 4
        let offsets = (0..<samples).map { (Double($0) + 0.5) / Double(samples) }
        let reach = Int(radius.rounded(.up))
        // The shape is every point within `radius` of the inner rectangle.
        let inner = (left: radius, top: radius, right: Double(width) - radius, bottom: Double(height) - radius)
        let radiusSquared = radius * radius
        // Only the corner bands can be partly outside; each pixel is visited once.
        let columns = Array(0..<min(reach, width)) + Array(max(reach, width - reach)..<width)
        let rows = Array(0..<min(reach, height)) + Array(max(reach, height - reach)..<height)
        pixels.withUnsafeMutableBufferPointer { pixels in
            for y in rows {
                for x in columns {
                    var inside = 0
                    for sy in offsets {
                        let py = Double(y) + sy
                        let dy = max(inner.top - py, 0, py - inner.bottom)
                        for sx in offsets {
                            let px = Double(x) + sx
                            let dx = max(inner.left - px, 0, px - inner.right)
                            if dx * dx + dy * dy <= radiusSquared { inside += 1 }
                        }
                    }
                    let index = y * bytesPerRow + x * 4 + 3
                    pixels[index] = UInt8((Int(pixels[index]) * inside + samples * samples / 2) / (samples * samples))
                }
            }
        }
        if alphaMode == .opaque { alphaMode = .straight }
    }
}
