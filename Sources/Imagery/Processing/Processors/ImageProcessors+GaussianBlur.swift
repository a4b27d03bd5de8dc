extension ImageProcessors {
    /// A Gaussian blur of standard deviation ``sigma`` pixels, at a cost that stays flat at
    /// large sigma (see `GaussianFilter` for the method and its error).
    ///
    /// Sigma 0 returns the image unchanged; a negative or non-finite sigma is refused.
    ///
    /// ```swift
    /// request.processors = [.blur(sigma: 20)]   // a backdrop
    /// ```
    public struct GaussianBlur: ImageProcessing, Hashable {
        /// The standard deviation, in pixels.
        public var sigma: Double

        /// A blur of `sigma` pixels.
        public init(sigma: Double) {
            self.sigma = sigma
        }

        public var identifier: String { "blur(\(sigma))" }

        public func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
            guard sigma.isFinite, sigma >= 0 else { throw .invalidRequest("blur sigma \(sigma) must be 0 or more") }
            let image = image.prepared
            guard sigma > 0 else { return image }
            return GaussianFilter.blurred(image, sigma: sigma).withStraightAlpha()
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
            let blurred = GaussianFilter.blurred(image, sigma: sigma)
            return image.unsharpMasked(by: blurred, amount: Float(amount), threshold: Float(threshold))
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
    /// This (straight or opaque) image sharpened against `blurred`, its premultiplied blur.
    fileprivate func unsharpMasked(by blurred: Bitmap, amount: Float, threshold: Float) -> Bitmap {
        var output = [UInt8](repeating: 0, count: width * height * 4)
        let premultiply = alphaMode == .straight
        pixels.withUnsafeBufferPointer { source in
            blurred.pixels.withUnsafeBufferPointer { blur in
                output.withUnsafeMutableBufferPointer { out in
                    for y in 0..<height {
                        let row = source.baseAddress! + y * bytesPerRow
                        // Opaque images in integers, a byte at a time in a loop the compiler
                        // vectorises (alpha stays 255: its blur is 255, so the difference is 0).
                        let vectorised = alphaMode == .opaque && amount <= 64 ? width : 0
                        if vectorised > 0 {
                            Self.sharpenOpaqueRow(
                                row, blur.baseAddress! + y * width * 4, into: out.baseAddress! + y * width * 4,
                                count: width * 4, amount: Int32((amount * 256).rounded()), threshold: Int32(threshold)
                            )
                        }
                        for x in vectorised..<width {
                            let original = GaussianFilter.load(row + x * 4, premultiply: premultiply)
                            let soft = GaussianFilter.load(blur.baseAddress! + (y * width + x) * 4, premultiply: false)
                            let difference = original - soft
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
                            GaussianFilter.store(sharp, into: out.baseAddress! + (y * width + x) * 4)
                        }
                    }
                }
            }
        }
        return Bitmap(width: width, height: height, pixels: output, alphaMode: alphaMode, metadata: metadata)
    }

    /// One row of an opaque image: `original + amount × (original − blurred)` where the
    /// difference exceeds `threshold`, with `amount` in 8.8 fixed point. Written as a plain loop
    /// over bytes so that it compiles to vector code; `SIMD` masks here compile to lane loops.
    @inline(__always)
    private static func sharpenOpaqueRow(
        _ original: UnsafePointer<UInt8>, _ blurred: UnsafePointer<UInt8>, into target: UnsafeMutablePointer<UInt8>,
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
