extension Bitmap {
    /// Returns the image resampled with a Lanczos-3 filter to the size `resize` asks for.
    ///
    /// `resize` is in display orientation; the stored pixels keep their ``orientation``
    /// (call ``oriented()`` afterwards to apply it). A draft decode (one with
    /// ``ImageMetadata/decodeScale`` below 1) is planned against the original size and
    /// stays aligned with the original pixel grid.
    ///
    /// ```swift
    /// let thumbnail = try bitmap.resized(.fill(width: 128, height: 128)).oriented()
    /// ```
    ///
    /// - Complexity: O(rows used × output width × taps + output pixels × taps), where taps
    ///   is about 6 × the reduction factor.
    public func resized(_ resize: Resize, allowsUpscaling: Bool = false) throws(ImageError) -> Bitmap {
        try resized(resize, allowsUpscaling: allowsUpscaling, orienting: false)
    }

    /// ``resized(_:allowsUpscaling:)``, and with `orienting` upright as well: the orientation is
    /// applied as the resampler stores its rows, so no second image of the output's size is made.
    package func resized(_ resize: Resize, allowsUpscaling: Bool, orienting: Bool, linearLight: Bool = false) throws(ImageError) -> Bitmap {
        let isDraft = metadata.decodeScale != 1
        let stored = isDraft ? metadata.originalSize : PixelSize(width: width, height: height)
        let display = orientation.swapsAxes ? PixelSize(width: stored.height, height: stored.width) : stored
        var plan = try resize.plan(for: display, allowsUpscaling: allowsUpscaling)
        if orientation.swapsAxes { plan = plan.transposed }
        return resampled(plan, orienting: orienting, linearLight: linearLight)
    }

    /// Resamples by a plan in the stored frame, in original-source pixels for a draft decode
    /// and in this bitmap's own pixels otherwise.
    package func resampled(_ plan: ResizePlan, orienting: Bool = false, linearLight: Bool = false) -> Bitmap {
        let scale = metadata.decodeScale
        let rect = SourceRect(
            x: plan.sourceRect.x * scale, y: plan.sourceRect.y * scale,
            width: plan.sourceRect.width * scale, height: plan.sourceRect.height * scale
        )
        if plan.outputSize.width == width, plan.outputSize.height == height,
           rect.x == 0, rect.y == 0, rect.width == Double(width), rect.height == Double(height) {
            var copy = self
            copy.metadata.decodeScale = 1
            return orienting ? copy.oriented() : copy
        }
        var result = LanczosResampler.resample(self, sourceRect: rect, to: plan.outputSize, orienting: orienting, linearLight: linearLight)
        result.metadata.decodeScale = 1
        return result
    }
}
