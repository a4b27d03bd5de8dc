extension DecodingOptions {
    /// The smallest decode scale (decoded pixels per source pixel) from which ``draft`` can
    /// still be produced without upscaling: 1 when there is no draft.
    package func draftScale(storedSize: PixelSize, orientation: ImageOrientation) -> Double {
        guard let draft, reducesWhileDecoding else { return 1 }
        let display = orientation.swapsAxes ? PixelSize(width: storedSize.height, height: storedSize.width) : storedSize
        guard let plan = try? draft.plan(for: display) else { return 1 }
        return min(1, plan.scale)
    }

    /// The orientation a decoder applies for an EXIF tag of `exif`: none when
    /// ``ignoresEXIFOrientation`` says the tag is to be ignored.
    package func appliedOrientation(exif: ImageOrientation) -> ImageOrientation {
        ignoresEXIFOrientation ? .up : exif
    }

    /// The integer box-reduction factor for a decoder with no reduction of its own: the
    /// largest that still covers `scale`. (Callers that want headroom for a Lanczos stage
    /// ask for a larger draft, as ``Thumbnailer`` does.)
    package static func boxFactor(forScale scale: Double) -> Int {
        guard scale > 0, scale <= 0.5 else { return 1 }
        return max(1, min(255, Int((1 / scale + 1e-9).rounded(.down))))
    }

    /// Throws ``ImageError/tooLarge(width:height:limit:)`` if a header's size is over the limit.
    package func checkPixelLimit(width: Int, height: Int) throws(ImageError) {
        guard width > 0, height > 0 else { throw .invalidRequest("image declares an empty size \(width)x\(height)") }
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || count > maximumPixelCount {
            throw .tooLarge(width: width, height: height, limit: maximumPixelCount)
        }
    }
}
