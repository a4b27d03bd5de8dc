extension DecodeKey {
    /// The pixels a decode of `bytes` holds at its peak, estimated from the header, for the
    /// pixel budget. The estimate follows the codecs' draft decoding: JPEG reduces in eighths
    /// (DCT scaling), PNG by an integer box factor over streamed rows, WebP to the draft itself;
    /// an SVG is rendered once at the size asked for; GIF (reduced band by band, but over a
    /// canvas the header may overstate), HEIC (whose embedded thumbnail may serve instead), AVIF,
    /// JPEG XL and the rest are charged whole, which errs on the safe side; an upscaling decode
    /// is never reduced. The resized output and the resample's rows are added, a progressive
    /// JPEG's coefficients (kept whole whatever the scale), and a whole JPEG's turn upright (a
    /// second image). An unreadable header costs nothing: its decode fails at once.
    func decodingCost(of bytes: [UInt8]) -> Int {
        guard let format = ImageFormat(sniffing: bytes), let stored = ImageHeader.size(of: bytes, format: format) else { return 0 }
        // A vector canvas is rendered at the size asked, whatever it declares.
        if format == .svg { return vectorCost(stored: stored) }
        // A raster header past the pixel limit (its sides are whatever the file says, up to 2³²
        // each) is refused by the decoder before it allocates: it costs nothing here, and every
        // sum below is of numbers the limit holds.
        let (pixels, overflow) = stored.width.multipliedReportingOverflow(by: stored.height)
        guard !overflow, pixels <= maximumPixelCount else { return 0 }
        if let animation = decodeOptions.animation, [.gif, .webp].contains(format) {
            let frames = ImageHeader.frameCount(of: bytes, format: format, limit: animation.maximumFrameCount)
            if frames > 1 { return animationCost(stored: stored, frames: frames) }
        }
        let progressive = format == .jpeg && ImageHeader.isProgressiveJPEG(bytes) == true
        // libjpeg keeps two bytes a coefficient: three bytes a pixel at 4:2:0, six at 4:4:4.
        let coefficients = progressive ? stored.pixelCount * 3 / 4 : 0
        guard decodeOptions.resize != nil else {
            let turned = format == .jpeg && (ImageHeader.exifOrientation(ofJPEG: bytes) ?? .up) != .up
            return min(stored.pixelCount * (turned ? 2 : 1) + coefficients, 1 << 50)
        }
        return min(stillCost(format: format, stored: stored) + coefficients, 1 << 50)
    }

    /// An animation holds its full-size canvas while composing, and every frame once resized:
    /// the whole animation is charged. A stream's decode composes only its poster: the canvas
    /// and one frame.
    private func animationCost(stored: PixelSize, frames: Int) -> Int {
        let frames = decodeOptions.animation?.delivery == .stream ? 1 : frames
        let full = stored.width * stored.height
        let allowsUpscaling = decodeOptions.allowsUpscaling
        let frame = decodeOptions.resize.flatMap { try? $0.plan(for: stored) }.map { allowsUpscaling ? $0.outputSize : PixelSize(
            width: min($0.outputSize.width, stored.width), height: min($0.outputSize.height, stored.height)
        ) }.map { $0.width * $0.height } ?? full
        let (total, overflow) = frame.multipliedReportingOverflow(by: frames)
        // Capped, so the queue's sum of running costs cannot overflow; such a decode is refused by its limits.
        return overflow ? 1 << 50 : min(full + total, 1 << 50)
    }

    /// A resized still: the decoded draft, the output and the resample between them.
    private func stillCost(format: ImageFormat, stored: PixelSize) -> Int {
        if format == .svg { return vectorCost(stored: stored) }
        let full = stored.width * stored.height
        guard let resize = decodeOptions.resize else { return full }
        let allowsUpscaling = decodeOptions.allowsUpscaling
        // The orientation is not known here: take the larger of the two ways round.
        let transposed = PixelSize(width: stored.height, height: stored.width)
        let outputs = [stored, transposed].compactMap { try? resize.plan(for: $0, allowsUpscaling: allowsUpscaling).outputSize }
        guard let output = outputs.max(by: { $0.pixelCount < $1.pixelCount }) else { return full }
        // The draft is the target times the headroom left for the Lanczos stage.
        let draft = resize.scaled(by: draftHeadroom)
        var side = 1.0
        // Without reduction while decoding (or when enlarging), the whole image is decoded.
        if !allowsUpscaling, reducesWhileDecoding, let upright = try? draft.plan(for: stored), let turned = try? draft.plan(for: transposed) {
            let scale = min(1, max(upright.scale, turned.scale))
            side = switch format {
            case .jpeg: (scale * 8).rounded(.up) / 8   // the smallest k/8 that covers the draft
            case .png: 1 / Double(DecodingOptions.boxFactor(forScale: scale))
            case .webp: scale
            default: 1
            }
        }
        let decoded = min(full, Int((Double(full) * pow2(side)).rounded(.up)))
        let draftSize = PixelSize(width: max(1, Int((Double(stored.width) * side).rounded(.up))), height: max(1, Int((Double(stored.height) * side).rounded(.up))))
        return decoded + output.pixelCount + LanczosResampler.scratchPixels(source: draftSize, output: output)
    }

    /// A vector source is rendered once, whole, at the resize's scale (upscaling too), and
    /// never over the pixel limit, however large the canvas it declares.
    private func vectorCost(stored: PixelSize) -> Int {
        let scale = decodeOptions.resize.flatMap { try? $0.plan(for: stored, allowsUpscaling: true) }?.scale ?? 1
        let rendered = Double(stored.width) * scale * Double(stored.height) * scale
        // NaN, infinities and negatives too: only a count within the limit becomes an Int.
        guard (0..<Double(maximumPixelCount)).contains(rendered) else { return maximumPixelCount }
        return Int(rendered.rounded(.up))
    }

    private func pow2(_ value: Double) -> Double { value * value }
}
