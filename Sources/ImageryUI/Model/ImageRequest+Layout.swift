import Imagery

extension ImageRequest {
    /// How a view without a target size in its request sizes the image to its layout.
    public enum LayoutFit: Sendable, Hashable {
        /// Covers the laid-out box, centre-cropped to it: what a grid cell with
        /// `.aspectRatio(contentMode: .fill)` and `.clipped()` shows anyway. The default.
        case fill
        /// Fits inside the laid-out box, keeping the whole image.
        case fit
    }

    /// This request sized for a view laid out at `width` × `height` points on a display with
    /// `scale` pixels per point: the pixels the screen will show, no more. A request that
    /// already has a `resize` is returned as it is; a box under one pixel gives `nil`
    /// (the view has not been laid out yet).
    ///
    /// ```swift
    /// let sized = request.sized(toWidth: 120, height: 120, scale: 3, fit: .fill)
    /// // sized.resize == .fill(width: 360, height: 360)
    /// ```
    public func sized(toWidth width: Double, height: Double, scale: Double, fit: LayoutFit = .fill) -> ImageRequest? {
        if resize != nil { return self }
        // Rounded up so the image is never a pixel short of the box.
        let pixelWidth = (width * scale).rounded(.up), pixelHeight = (height * scale).rounded(.up)
        guard pixelWidth >= 1, pixelHeight >= 1, pixelWidth < 1e6, pixelHeight < 1e6 else { return nil }
        var sized = self
        switch fit {
        case .fill: sized.resize = .fill(width: Int(pixelWidth), height: Int(pixelHeight))
        case .fit: sized.resize = .fit(width: Int(pixelWidth), height: Int(pixelHeight))
        }
        return sized
    }
}
