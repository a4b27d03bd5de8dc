import Imagery

// What imgproxy's own steps hold, so the pipeline's pixel budget charges an enlargement or a
// padding by its real size: sizes worked out as each step's `process(_:)` works them out.

extension ImgproxyResize: FootprintEstimating {
    func footprint(for input: PixelSize) -> ProcessingFootprint {
        let output = outputSize(for: input) ?? input
        return .copying(input, to: output, scratch: LanczosResampler.scratchPixels(source: input, output: output))
    }

    /// The size ``process(_:)`` makes of an upright input of `size`.
    func outputSize(for size: PixelSize) -> PixelSize? {
        if isScaled {
            let output = scaledGeometry(for: size).output
            return PixelSize(width: output.width, height: output.height)
        }
        guard width > 0 || height > 0 else { return size }
        guard width > 0, height > 0 else {
            return try? (width > 0 ? Resize.width(width) : .height(height)).plan(for: size, allowsUpscaling: enlarge).outputSize
        }
        switch type {
        case .fit:
            return try? Resize.fit(width: width, height: height).plan(for: size, allowsUpscaling: enlarge).outputSize
        case .fill:
            return try? Resize.fill(width: width, height: height).plan(for: size, allowsUpscaling: enlarge).outputSize
        case .auto:
            var same = self
            same.type = (size.width >= size.height) == (width >= height) ? .fill : .fit
            return same.outputSize(for: size)
        case .fillDown:
            let shrink = min(1, Double(size.width) / Double(width), Double(size.height) / Double(height))
            let box = (width: max(1, Int((Double(width) * shrink).rounded())), height: max(1, Int((Double(height) * shrink).rounded())))
            return try? Resize.fill(width: box.width, height: box.height).plan(for: size, allowsUpscaling: false).outputSize
        case .force:
            return PixelSize(width: width, height: height)
        }
    }
}

extension ImgproxyCrop: FootprintEstimating {
    func footprint(for input: PixelSize) -> ProcessingFootprint {
        .copying(input, to: window(in: input))
    }
}

extension ImgproxyExtendAspectRatio: FootprintEstimating {
    func footprint(for input: PixelSize) -> ProcessingFootprint {
        let wide = input.width * height, tall = input.height * width
        guard wide != tall else { return .inPlace(input) }
        let padded = wide > tall
            ? PixelSize(width: input.width, height: (input.width * height + width - 1) / width)
            : PixelSize(width: (input.height * width + height - 1) / height, height: input.height)
        return .copying(input, to: padded)
    }
}
