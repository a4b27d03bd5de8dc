extension ImageProcessors {
    /// A Gaussian blur of standard deviation ``sigma`` pixels, at a cost that stays flat at
    /// large sigma (see `GaussianFilter` for the method and its error).
    ///
    /// Sigma 0 returns the image unchanged; a negative or non-finite sigma is refused.
    ///
    /// ```swift
    /// request.processors = [.blur(sigma: 20)]   // a backdrop
    /// ```
    public struct GaussianBlur: ImageProcessing, InPlaceImageProcessing, Hashable {
        /// The standard deviation, in pixels.
        public var sigma: Double

        /// A blur of `sigma` pixels.
        public init(sigma: Double) {
            self.sigma = sigma
        }

        public var identifier: String { "blur(\(sigma))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            var image = image
            try process(&image)
            return image
        }

        package func process(_ image: inout Bitmap) throws(ImageError) {
            guard sigma.isFinite, sigma >= 0 else { throw .invalidRequest("blur sigma \(sigma) must be 0 or more") }
            image.prepare()
            guard sigma > 0 else { return }
            GaussianFilter.blur(&image, sigma: sigma)
            image.makeStraightAlpha()
        }
    }

    /// An unsharp mask: the image plus `amount` times its difference from a blur of
    /// `sigma`, with differences of `threshold` or less (out of 255) left alone so flat
    /// areas do not grow noise.
    ///
    /// ```swift
    /// request.processors = [.sharpen(sigma: 1, amount: 0.8)]
    /// ```
    public struct Sharpen: ImageProcessing, Hashable {
        /// The blur's standard deviation, in pixels: the size of the detail sharpened.
        public var sigma: Double
        /// How much of the difference is added: 1 doubles local contrast.
        public var amount: Double
        /// Differences at or below this (0...255) are not sharpened.
        public var threshold: Int

        /// An unsharp mask of `sigma` pixels and strength `amount`.
        public init(sigma: Double = 1, amount: Double = 1, threshold: Int = 0) {
            self.sigma = sigma
            self.amount = amount
            self.threshold = threshold
        }

        public var identifier: String { "sharpen(\(sigma),\(amount),\(threshold))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            guard sigma.isFinite, sigma >= 0, amount.isFinite, amount >= 0, (0...255).contains(threshold) else {
                throw .invalidRequest("sharpen sigma \(sigma), amount \(amount), threshold \(threshold): need sigma ≥ 0, amount ≥ 0, threshold 0...255")
            }
            let image = image.prepared
            guard sigma > 0, amount > 0 else { return image }
            // The result is written over the blur, which nothing else holds: two images at most.
            var blurred = GaussianFilter.blurred(image, sigma: sigma)
            image.unsharpMask(into: &blurred, amount: Float(amount), threshold: Float(threshold))
            return blurred
        }
    }
}

extension ImageProcessing where Self == ImageProcessors.GaussianBlur {
    /// A Gaussian blur of `sigma` pixels.
    ///
    /// ```swift
    /// request.processors = [.blur(sigma: 8)]
    /// ```
    public static func blur(sigma: Double) -> Self { Self(sigma: sigma) }
}

extension ImageProcessing where Self == ImageProcessors.Sharpen {
    /// An unsharp mask of `sigma` pixels and strength `amount`.
    ///
    /// ```swift
    /// request.processors = [.sharpen()]
    /// ```
    public static func sharpen(sigma: Double = 1, amount: Double = 1, threshold: Int = 0) -> Self {
        Self(sigma: sigma, amount: amount, threshold: threshold)
    }
}

extension Bitmap {
    /// This (straight or opaque) image sharpened against `blurred`, its premultiplied blur of
    /// the same stride, written over `blurred` pixel by pixel (each reads only its own pixel).
    fileprivate func unsharpMask(into blurred: inout Bitmap, amount: Float, threshold: Float) {
        let premultiply = alphaMode == .straight
        let blurStride = blurred.bytesPerRow
        pixels.withUnsafeBufferPointer { source in
            blurred.pixels.withUnsafeMutableBufferPointer { blur in
                for y in 0..<height {
                    let row = source.baseAddress! + y * bytesPerRow, soft = blur.baseAddress! + y * blurStride
                    // Opaque images in integers, a byte at a time in a loop the compiler
                    // vectorises (alpha stays 255: its blur is 255, so the difference is 0).
                    let vectorised = alphaMode == .opaque && amount <= 64 ? width : 0
                    if vectorised > 0 {
                        Self.sharpenOpaqueRow(
                            row, soft, into: soft, count: width * 4, amount: Int32((amount * 256).rounded()), threshold: Int32(threshold)
                        )
                    }
                    for x in vectorised..<width {
                        let original = GaussianFilter.load(row + x * 4, premultiply: premultiply)
                        let blurredPixel = GaussianFilter.load(soft + x * 4, premultiply: false)
                        let difference = original - blurredPixel
                        let magnitude = difference.replacing(with: -difference, where: difference .< 0)
                        let mask = magnitude .> SIMD4(repeating: threshold)
                        var sharp = original.replacing(with: original + difference * amount, where: mask)
                        // Alpha is kept; premultiplied colour may not exceed it.
                        sharp.w = original.w
                        let ceiling = SIMD4<Float>(repeating: original.w)
                        sharp = sharp.clamped(lowerBound: .zero, upperBound: ceiling)
                        if premultiply, original.w > 0, original.w < 255 {
                            let unscale = 255 / original.w
                            sharp = SIMD4(sharp.x * unscale, sharp.y * unscale, sharp.z * unscale, sharp.w)
                        }
                        GaussianFilter.store(sharp, into: soft + x * 4)
                    }
                }
            }
        }
        blurred.alphaMode = alphaMode
        blurred.metadata = metadata
    }

    /// One row of an opaque image: `original + amount × (original − blurred)` where the
    /// difference exceeds `threshold`, with `amount` in 8.8 fixed point. Written as a plain loop
    /// over bytes so that it compiles to vector code; `SIMD` masks here compile to lane loops.
    @inline(__always)
    private static func sharpenOpaqueRow(
        _ original: UnsafePointer<UInt8>, _ blurred: UnsafeMutablePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>,
        count: Int, amount: Int32, threshold: Int32
    ) {
        for i in 0..<count {
            // Wrapping operators: the bounds above keep every value far inside Int32, and
            // overflow checks would stop the loop from vectorising.
            let o = Int32(original[i]), difference = o &- Int32(blurred[i])
            let sharp = min(max(o &+ ((difference &* amount &+ 128) &>> 8), 0), 255)
            let magnitude = difference < 0 ? -difference : difference
            target[i] = UInt8(truncatingIfNeeded: magnitude > threshold ? sharp : o)
        }
    }
}
