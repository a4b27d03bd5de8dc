extension ImageProcessors {
    /// Averages the image over square blocks of ``size`` pixels, from the top left (imgproxy's
    /// `pixelate`). Colours are averaged weighted by alpha, so a transparent pixel lends no colour.
    ///
    /// ```swift
    /// request.processors = [.pixelate(8)]
    /// ```
    public struct Pixelate: ImageProcessing, InPlaceImageProcessing, Hashable {
        /// The block's side, in pixels.
        public var size: Int

        /// Blocks of `size` × `size` pixels.
        public init(size: Int) {
            self.size = size
        }

        public var identifier: String { "pixelate(\(size))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            var image = image
            try process(&image)
            return image
        }

        package func process(_ image: inout Bitmap) throws(ImageError) {
            guard size >= 1 else { throw .invalidRequest("pixelate size \(size) must be 1 or more") }
            image.prepare()
            guard size > 1 else { return }
            let width = image.width, height = image.height, stride = image.bytesPerRow
            image.pixels.withUnsafeMutableBufferPointer { pixels in
                for top in Swift.stride(from: 0, to: height, by: size) {
                    for left in Swift.stride(from: 0, to: width, by: size) {
                        let rows = top..<min(top + size, height), columns = left..<min(left + size, width)
                        var sums = (red: 0, green: 0, blue: 0, alpha: 0)
                        for y in rows {
                            for x in columns {
                                let at = y * stride + x * 4, alpha = Int(pixels[at + 3])
                                sums.red += Int(pixels[at]) * alpha
                                sums.green += Int(pixels[at + 1]) * alpha
                                sums.blue += Int(pixels[at + 2]) * alpha
                                sums.alpha += alpha
                            }
                        }
                        let count = rows.count * columns.count
                        let weight = max(1, sums.alpha)
                        let block: [UInt8] = [
                            UInt8((sums.red + weight / 2) / weight), UInt8((sums.green + weight / 2) / weight),
                            UInt8((sums.blue + weight / 2) / weight), UInt8((sums.alpha + count / 2) / count),
                        ]
                        for y in rows {
                            for x in columns {
                                let at = y * stride + x * 4
                                for channel in 0..<4 { pixels[at + channel] = block[channel] }
                            }
                        }
                    }
                }
            }
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.Pixelate {
    /// The image averaged over `size` × `size` blocks.
    ///
    /// ```swift
    /// request.processors = [.pixelate(12)]
    /// ```
    public static func pixelate(_ size: Int) -> Self { Self(size: size) }
}
