extension Bitmap {
    /// Whether any pixel is less than fully opaque.
    public var hasTransparency: Bool {
        guard alphaMode != .opaque else { return false }
        for y in 0..<height {
            let row = y * bytesPerRow
            for x in 0..<width where pixels[row + x * 4 + 3] != 255 { return true }
        }
        return false
    }

    /// Whether any pixel is neither fully opaque nor fully transparent: what a palette with one
    /// transparent entry (GIF, an indexed PNG) cannot keep.
    package var hasPartialAlpha: Bool {
        guard alphaMode != .opaque else { return false }
        for y in 0..<height {
            let row = y * bytesPerRow
            for x in 0..<width where pixels[row + x * 4 + 3] != 255 && pixels[row + x * 4 + 3] != 0 { return true }
        }
        return false
    }

    /// Returns the image composited over `background`, fully opaque. Formats without
    /// alpha (JPEG) are encoded from this.
    ///
    /// ```swift
    /// let flat = logo.flattened(over: .white)
    /// ```
    public func flattened(over background: RGBA = .white) -> Bitmap {
        var copy = self
        copy.flatten(over: background)
        return copy
    }

    /// ``flattened(over:)`` in place: pixels nothing else holds are changed without a copy.
    package mutating func flatten(over background: RGBA = .white) {
        if alphaMode == .opaque { return }
        let premultiplied = alphaMode == .premultiplied
        let bg = SIMD3<UInt32>(UInt32(background.red), UInt32(background.green), UInt32(background.blue))
        updateTranslucentPixels { p, a in
            let colour = SIMD3<UInt32>(UInt32(p[0]), UInt32(p[1]), UInt32(p[2]))
            let foreground = premultiplied ? colour &* 255 : colour &* a
            let mixed = (foreground &+ bg &* (255 - a) &+ 127) / 255
            p[0] = UInt8(truncatingIfNeeded: min(mixed.x, 255))
            p[1] = UInt8(truncatingIfNeeded: min(mixed.y, 255))
            p[2] = UInt8(truncatingIfNeeded: min(mixed.z, 255))
            p[3] = 255
        }
        alphaMode = .opaque
    }

    /// Returns the image with straight alpha (undoing premultiplication if needed).
    public func withStraightAlpha() -> Bitmap {
        var copy = self
        copy.makeStraightAlpha()
        return copy
    }

    /// ``withStraightAlpha()`` in place: pixels nothing else holds are changed without a copy.
    package mutating func makeStraightAlpha() {
        guard alphaMode == .premultiplied else { return }
        updateTranslucentPixels { p, a in
            for c in 0..<3 { p[c] = a == 0 ? 0 : UInt8(min(255, (UInt32(p[c]) * 255 + a / 2) / a)) }
        }
        alphaMode = .straight
    }

    /// Calls `body` with each pixel whose alpha is below 255, and that alpha.
    private mutating func updateTranslucentPixels(_ body: (UnsafeMutablePointer<UInt8>, UInt32) -> Void) {
        let (width, height, bytesPerRow) = (self.width, self.height, self.bytesPerRow)
        pixels.withUnsafeMutableBufferPointer { buffer in
            for y in 0..<height {
                let row = buffer.baseAddress! + y * bytesPerRow
                for x in 0..<width where row[x * 4 + 3] != 255 {
                    body(row + x * 4, UInt32(row[x * 4 + 3]))
                }
            }
        }
    }

    /// The pixels as tightly packed RGBA rows (no row padding).
    package var packedPixels: [UInt8] {
        if bytesPerRow == width * 4 && pixels.count == width * height * 4 { return pixels }
        var packed = [UInt8]()
        packed.reserveCapacity(width * height * 4)
        for y in 0..<height { packed.append(contentsOf: pixels[(y * bytesPerRow)..<(y * bytesPerRow + width * 4)]) }
        return packed
    }
}
