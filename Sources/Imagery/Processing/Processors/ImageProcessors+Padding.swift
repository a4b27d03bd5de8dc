extension ImageProcessors {
    /// Adds ``top``, ``right``, ``bottom`` and ``left`` pixels of ``color`` around the image,
    /// whatever its size (imgproxy's `padding`; ``Pad`` pads to a box instead).
    ///
    /// ```swift
    /// request.processors = [.padding(top: 10, right: 20, bottom: 10, left: 20, color: .white)]
    /// ```
    public struct Padding: ImageProcessing, Hashable {
        /// Pixels added above.
        public var top: Int
        /// Pixels added to the right.
        public var right: Int
        /// Pixels added below.
        public var bottom: Int
        /// Pixels added to the left.
        public var left: Int
        /// The colour of the added area; a translucent one leaves the result with alpha.
        public var color: RGBA

        /// Padding of the given widths, in pixels, with `color`.
        public init(top: Int, right: Int, bottom: Int, left: Int, color: RGBA) {
            (self.top, self.right, self.bottom, self.left, self.color) = (top, right, bottom, left, color)
        }

        public var identifier: String { "padding(\(top),\(right),\(bottom),\(left),\(color.identifier))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            guard [top, right, bottom, left].allSatisfy({ (0...Self.maximumSide).contains($0) }) else {
                throw .invalidRequest("padding must be 0 to \(Self.maximumSide) pixels a side")
            }
            let image = image.prepared
            guard top + right + bottom + left > 0 else { return image }
            let width = image.width + left + right, height = image.height + top + bottom
            guard width.multipliedReportingOverflow(by: height).partialValue <= 1 << 30 else {
                throw .invalidRequest("padding makes \(width)x\(height), larger than 2^30 pixels")
            }
            return image.placed(width: width, height: height, x: left, y: top, color: color)
        }

        /// The most one side may add.
        static let maximumSide = 1 << 14
    }
}

extension ImageProcessing where Self == ImageProcessors.Padding {
    /// `top`, `right`, `bottom` and `left` pixels of `color` added around the image.
    ///
    /// ```swift
    /// request.processors = [.padding(top: 8, right: 8, bottom: 8, left: 8, color: .white)]
    /// ```
    public static func padding(top: Int, right: Int, bottom: Int, left: Int, color: RGBA) -> Self {
        Self(top: top, right: right, bottom: bottom, left: left, color: color)
    }
}
