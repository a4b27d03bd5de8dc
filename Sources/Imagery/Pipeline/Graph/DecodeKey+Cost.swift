extension DecodeKey {
    /// The pixels a decode of `bytes` holds at its peak, estimated from the header, for the
    /// decoding-pixel budget. The estimate follows the codecs' draft decoding: JPEG reduces in
    /// eighths (DCT scaling), PNG by an integer box factor over streamed rows, WebP to the draft
    /// itself; an SVG is rendered at the size asked for; GIF (reduced band by band, but over a canvas the header may overstate), HEIC
    /// (whose embedded thumbnail may serve instead), AVIF, JPEG XL and the rest are charged
    /// whole, which errs on the safe side. The resized output is added. An unreadable header
    /// costs nothing: its decode fails at once.
    func decodingCost(of bytes: [UInt8]) -> Int {
        guard let format = ImageFormat(sniffing: bytes), let stored = ImageHeader.size(of: bytes, format: format) else { return 0 }
        if let animation, [.gif, .webp].contains(format) {
            let frames = ImageHeader.frameCount(of: bytes, format: format, limit: animation.maximumFrameCount)
            if frames > 1 { return animationCost(stored: stored, frames: frames) }
        }
        return stillCost(format: format, stored: stored)
    }

    /// An animation holds its full-size canvas while composing, and every frame once resized:
    /// the whole animation is charged. A stream's decode composes only its poster: the canvas
    /// and one frame.
    private func animationCost(stored: PixelSize, frames: Int) -> Int {
        let frames = animation?.delivery == .stream ? 1 : frames
        let full = stored.width * stored.height
        let frame = resize.flatMap { try? $0.plan(for: stored) }.map { allowsUpscaling ? $0.outputSize : PixelSize(
            width: min($0.outputSize.width, stored.width), height: min($0.outputSize.height, stored.height)
        ) }.map { $0.width * $0.height } ?? full
        let (total, overflow) = frame.multipliedReportingOverflow(by: frames)
        // Capped, so the queue's sum of running costs cannot overflow; such a decode is refused by its limits.
        return overflow ? 1 << 50 : min(full + total, 1 << 50)
    }

    private func stillCost(format: ImageFormat, stored: PixelSize) -> Int {
        if format == .svg { return vectorCost(stored: stored) }
        let full = stored.width * stored.height
        guard let resize, !allowsUpscaling else { return full }
        guard reducesWhileDecoding else {
            // The whole image, then the resized output beside it.
            return full + ((try? resize.plan(for: stored)).map { $0.outputSize.width * $0.outputSize.height } ?? 0)
        }
        // The draft is the target times the headroom left for the Lanczos stage. The
        // orientation is not known here: take the larger scale of the two ways round.
        let transposed = PixelSize(width: stored.height, height: stored.width)
        let draft = resize.scaled(by: draftHeadroom)
        guard let plan = try? resize.plan(for: stored),
              let upright = try? draft.plan(for: stored), let turned = try? draft.plan(for: transposed) else { return full }
        let scale = min(1, max(upright.scale, turned.scale))
        let decoded: Double = switch format {
        case .jpeg:
            // The smallest k/8 that covers the draft.
            Double(full) * pow2((scale * 8).rounded(.up) / 8)
        case .png:
            Double(full) / pow2(Double(DecodingOptions.boxFactor(forScale: scale)))
        case .webp:
            Double(full) * pow2(scale)
        default:
            Double(full)
        }
        return min(full, Int(decoded.rounded(.up))) + plan.outputSize.width * plan.outputSize.height
    }

    /// A vector source is rendered once, whole, at the resize's scale (upscaling too), and
    /// never over the pixel limit, however large the canvas it declares.
    private func vectorCost(stored: PixelSize) -> Int {
        let scale = resize.flatMap { try? $0.plan(for: stored, allowsUpscaling: true) }?.scale ?? 1
        let rendered = Double(stored.width) * scale * Double(stored.height) * scale
        return Int(min(rendered.rounded(.up), Double(maximumPixelCount)))
    }

    private func pow2(_ value: Double) -> Double { value * value }
}
