extension ImageProcessors {
    /// Cuts away a border of one colour (imgproxy's `trim`): rows and columns from each edge
    /// whose every pixel is within ``threshold`` of ``color`` on every channel, alpha included.
    /// An image that is all border is returned whole, never as an empty image.
    ///
    /// ```swift
    /// request.processors = [.trim(threshold: 10)]                        // the top-left pixel's colour
    /// request.processors = [.trim(threshold: 0, color: .white, equalHorizontal: true)]
    /// ```
    public struct Trim: ImageProcessing, Hashable {
        /// How far a channel (0–255) may be from the colour and still count as border.
        public var threshold: Double
        /// The border's colour; `nil` takes the top-left pixel's.
        public var color: RGBA?
        /// Cuts as much from the left as from the right: the smaller of the two.
        public var equalHorizontal: Bool
        /// Cuts as much from the top as from the bottom: the smaller of the two.
        public var equalVertical: Bool

        /// A trim of the border within `threshold` of `color`.
        public init(threshold: Double, color: RGBA? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false) {
            self.threshold = threshold
            self.color = color
            self.equalHorizontal = equalHorizontal
            self.equalVertical = equalVertical
        }

        public var identifier: String {
            "trim(\(threshold),\(color?.identifier ?? "corner"),\(equalHorizontal),\(equalVertical))"
        }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            guard threshold.isFinite, threshold >= 0 else { throw .invalidRequest("trim threshold \(threshold) must be 0 or more") }
            let image = image.prepared
            let border = color ?? image.pixel(x: 0, y: 0)
            let reference = [Int(border.red), Int(border.green), Int(border.blue), Int(border.alpha)]
            let limit = Int(threshold.rounded(.down)), width = image.width, height = image.height, stride = image.bytesPerRow
            let edges = image.pixels.withUnsafeBufferPointer { pixels -> (top: Int, bottom: Int, left: Int, right: Int)? in
                func isBorder(_ x: Int, _ y: Int) -> Bool {
                    let at = y * stride + x * 4
                    for channel in 0..<4 where abs(Int(pixels[at + channel]) - reference[channel]) > limit { return false }
                    return true
                }
                guard let top = (0..<height).first(where: { y in !(0..<width).allSatisfy { isBorder($0, y) } }) else { return nil }
                let bottom = (top..<height).last { y in !(0..<width).allSatisfy { isBorder($0, y) } } ?? top
                let left = (0..<width).first { x in !(top...bottom).allSatisfy { isBorder(x, $0) } } ?? 0
                let right = (left..<width).last { x in !(top...bottom).allSatisfy { isBorder(x, $0) } } ?? left
                return (top, bottom, left, right)
            }
            guard var edges else { return image }
            if equalHorizontal {
                let cut = min(edges.left, width - 1 - edges.right)
                (edges.left, edges.right) = (cut, width - 1 - cut)
            }
            if equalVertical {
                let cut = min(edges.top, height - 1 - edges.bottom)
                (edges.top, edges.bottom) = (cut, height - 1 - cut)
            }
            return image.cropped(x: edges.left, y: edges.top, width: edges.right - edges.left + 1, height: edges.bottom - edges.top + 1)
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Trim {
    /// The image without its border of one colour.
    ///
    /// ```swift
    /// var request = ImageRequest(url: url, resize: .fit(width: 300, height: 300))
    /// request.processors = [.trim(threshold: 10)]
    /// ```
    public static func trim(
        threshold: Double, color: RGBA? = nil, equalHorizontal: Bool = false, equalVertical: Bool = false
    ) -> Self {
        Self(threshold: threshold, color: color, equalHorizontal: equalHorizontal, equalVertical: equalVertical)
    }
}
