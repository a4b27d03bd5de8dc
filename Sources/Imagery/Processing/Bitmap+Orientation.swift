extension Bitmap {
    /// Returns the upright image: ``orientation`` applied to the pixels, and ``orientation`` set to `.up`.
    ///
    /// ```swift
    /// let upright = bitmap.oriented()   // a 2560x1600 EXIF-6 photo becomes 1600x2560
    /// ```
    ///
    /// - Complexity: O(pixels).
    public func oriented() -> Bitmap {
        if orientation == .up { return self }
        let w = width, h = height
        let display = displaySize
        var output = [UInt8](repeating: 0, count: display.width * display.height * 4)
        let orientation = self.orientation
        pixels.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in
                let out = destination.baseAddress!.assumingMemoryBound(to: UInt32.self)
                for dy in 0..<display.height {
                    for dx in 0..<display.width {
                        let sx: Int, sy: Int
                        switch orientation {
                        case .up: (sx, sy) = (dx, dy)
                        case .upMirrored: (sx, sy) = (w - 1 - dx, dy)
                        case .down: (sx, sy) = (w - 1 - dx, h - 1 - dy)
                        case .downMirrored: (sx, sy) = (dx, h - 1 - dy)
                        case .leftMirrored: (sx, sy) = (dy, dx)
                        case .right: (sx, sy) = (dy, h - 1 - dx)
                        case .rightMirrored: (sx, sy) = (w - 1 - dy, h - 1 - dx)
                        case .left: (sx, sy) = (w - 1 - dy, dx)
                        }
                        out[dy * display.width + dx] = source.loadUnaligned(fromByteOffset: sy * bytesPerRow + sx * 4, as: UInt32.self)
                    }
                }
            }
        }
        var upright = Bitmap(width: display.width, height: display.height, pixels: output,
                             alphaMode: alphaMode, orientation: .up, metadata: metadata)
        upright.metadata.decodeScale = 1
        return upright
    }
}
