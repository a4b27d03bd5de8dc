extension ImageProcessors {
    /// Draws another image over this one (a watermark, a badge), placed by a ``Gravity`` or
    /// tiled over the whole image, at an opacity, and optionally scaled to a fraction of the
    /// image's width. Alpha is blended as "source over".
    ///
    /// The overlay's pixels are not part of ``identifier``: ``identity`` names them, and must
    /// change whenever they do (a digest of the overlay's file is a good identity).
    ///
    /// ```swift
    /// let logo = try ImageDecoder().decode(logoBytes)
    /// request.processors = [.overlay(logo, identity: "logo-v2", gravity: .offset(.southEast, x: 10, y: 10), opacity: 0.5)]
    /// ```
    public struct Overlay: ImageProcessing, InPlaceImageProcessing {
        /// The image drawn over.
        public var image: Bitmap
        /// What names ``image`` in cache keys.
        public var identity: String
        /// Where it sits; `nil` tiles it from the top left.
        public var gravity: Gravity?
        /// 0–1, multiplied into the overlay's own alpha.
        public var opacity: Double
        /// The overlay's width as a fraction of the image's (0–1); 0 keeps its own size.
        public var scale: Double

        /// `image` over the processed image, named by `identity`.
        public init(_ image: Bitmap, identity: String, gravity: Gravity? = .center, opacity: Double = 1, scale: Double = 0) {
            self.image = image
            self.identity = identity
            self.gravity = gravity
            self.opacity = opacity
            self.scale = scale
        }

        public var identifier: String {
            "overlay(\(identity),\(gravity?.identifier ?? "tiled"),\(opacity),\(scale))"
        }

        public func process(_ base: Bitmap) throws(ImageError) -> Bitmap {
            var base = base
            try process(&base)
            return base
        }

        package func process(_ base: inout Bitmap) throws(ImageError) {
            guard (0...1).contains(opacity), (0...1).contains(scale) else {
                throw .invalidRequest("overlay opacity \(opacity) and scale \(scale) must be 0...1")
            }
            try gravity?.validate()
            base.prepare()   // an opaque base stays opaque: 255 - a + a
            var overlay = image.prepared
            if scale > 0 {
                let width = max(1, Int((Double(base.width) * scale).rounded()))
                overlay = try overlay.resized(.width(width), allowsUpscaling: true).withStraightAlpha()
            }
            guard opacity > 0 else { return }
            let factor = Int((opacity * 255).rounded())
            if let gravity {
                let origin = (gravity == .smart ? Gravity.center : gravity).origin(
                    of: (Double(overlay.width), Double(overlay.height)), in: (Double(base.width), Double(base.height))
                )
                Self.blend(overlay, at: (Int(origin.x.rounded(.down)), Int(origin.y.rounded(.down))), opacity: factor, into: &base)
            } else {
                for y in Swift.stride(from: 0, to: base.height, by: overlay.height) {
                    for x in Swift.stride(from: 0, to: base.width, by: overlay.width) {
                        Self.blend(overlay, at: (x, y), opacity: factor, into: &base)
                    }
                }
            }
        }

        /// "Source over" with straight alpha, the part of `overlay` inside `base` only.
        private static func blend(_ overlay: Bitmap, at origin: (x: Int, y: Int), opacity: Int, into base: inout Bitmap) {
            let columns = max(0, origin.x)..<min(base.width, origin.x + overlay.width)
            let rows = max(0, origin.y)..<min(base.height, origin.y + overlay.height)
            guard !columns.isEmpty, !rows.isEmpty else { return }
            let baseStride = base.bytesPerRow, overStride = overlay.bytesPerRow
            overlay.pixels.withUnsafeBufferPointer { top in
                base.pixels.withUnsafeMutableBufferPointer { bottom in
                    for y in rows {
                        for x in columns {
                            let over = (y - origin.y) * overStride + (x - origin.x) * 4, under = y * baseStride + x * 4
                            let alpha = Int(top[over + 3]) * opacity / 255   // 0–255
                            guard alpha > 0 else { continue }
                            let below = Int(bottom[under + 3]) * (255 - alpha) / 255
                            let total = alpha + below
                            for channel in 0..<3 {
                                let mixed = (Int(top[over + channel]) * alpha + Int(bottom[under + channel]) * below + total / 2) / total
                                bottom[under + channel] = UInt8(mixed)
                            }
                            bottom[under + 3] = UInt8(total)
                        }
                    }
                }
            }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Overlay {
    /// `image` drawn over the processed image.
    ///
    /// ```swift
    /// request.processors = [.overlay(badge, identity: "badge-1", gravity: .northEast)]
    /// ```
    public static func overlay(
        _ image: Bitmap, identity: String, gravity: Gravity? = .center, opacity: Double = 1, scale: Double = 0
    ) -> Self {
        Self(image, identity: identity, gravity: gravity, opacity: opacity, scale: scale)
    }
}
