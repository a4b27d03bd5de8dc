import Imagery

extension ImgproxyPlan {
    /// The most pixels a request is cheap at: a thumbnail or a page's image, up to a megapixel.
    static let smallOutputPixels = 1 << 20
    /// The pixels past which a request is large: a 4096-pixel square, about 16 MP.
    static let largeOutputPixels = 1 << 24

    /// The pipeline priority of a request whose result fits `box` (a zero side: as long as the
    /// other; both zero: the source's size, unknown here) and `dimension` (the result limit;
    /// 0 for none): small work first, so a thumbnail is not queued behind a poster.
    /// ``ImageRequest/Priority-swift.enum/high`` up to ``smallOutputPixels``, `normal` up to
    /// ``largeOutputPixels`` or when the size is the source's, `low` beyond. The heavy-work
    /// queue ages every band, so large work is delayed, never starved.
    static func priority(box: (width: Int, height: Int), dimension: Int) -> ImageRequest.Priority {
        var (width, height) = (box.width, box.height)
        if width == 0 { width = height }
        if height == 0 { height = width }
        if dimension > 0 { (width, height) = (min(width == 0 ? dimension : width, dimension), min(height == 0 ? dimension : height, dimension)) }
        guard width > 0, height > 0 else { return .normal }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > largeOutputPixels { return .low }
        return pixels <= smallOutputPixels ? .high : .normal
    }
}
