/// What a processing run holds in memory, in pixels of 4 bytes, for the pipeline's pixel
/// budget: the size of the image it makes and the most it holds at once, its input included.
package struct ProcessingFootprint: Sendable, Hashable {
    /// The size of the image the run makes.
    package var output: PixelSize
    /// The most pixels held at once: the input, the output and any scratch that overlap.
    package var peak: Int

    package init(output: PixelSize, peak: Int) {
        self.output = output
        self.peak = peak
    }

    /// A run that makes a new image of `output`'s size beside its input of `input`'s.
    package static func copying(_ input: PixelSize, to output: PixelSize, scratch: Int = 0) -> Self {
        Self(output: output, peak: sum(input.pixelCount, output.pixelCount, scratch))
    }

    /// A run that changes its input in place, holding only `scratch` besides.
    package static func inPlace(_ input: PixelSize, scratch: Int = 0) -> Self {
        Self(output: input, peak: sum(input.pixelCount, scratch))
    }

    /// The most a footprint says: far past any machine, and small enough that the budget's sums
    /// of running costs never overflow. Sizes come from options and headers, so each term is
    /// held to it before they are added.
    package static let ceiling = 1 << 50

    private static func sum(_ terms: Int...) -> Int {
        Swift.min(terms.reduce(0) { $0 + Swift.min(Swift.max($1, 0), ceiling) }, ceiling)
    }
}

/// A processor that can say what its run holds before it runs, so the pipeline charges its
/// budget with it. A processor without one is taken to make one new image of its input's size.
package protocol FootprintEstimating {
    func footprint(for input: PixelSize) -> ProcessingFootprint
}

extension [any ImageProcessing] {
    /// The processors run in order on an upright input of `input`'s size: the final size, and
    /// the most any step holds (each step's input goes once its output is made).
    package func footprint(for input: PixelSize) -> ProcessingFootprint {
        var total = ProcessingFootprint.inPlace(input)
        for processor in self {
            let step = (processor as? any FootprintEstimating)?.footprint(for: total.output) ?? .copying(total.output, to: total.output)
            total = ProcessingFootprint(output: step.output, peak: Swift.max(total.peak, step.peak))
        }
        return total
    }
}

extension ImageProcessors.GaussianBlur: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint {
        .inPlace(input, scratch: GaussianFilter.scratchPixels(for: input, sigma: sigma))
    }
}

extension ImageProcessors.Sharpen: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint {
        .copying(input, to: input, scratch: GaussianFilter.scratchPixels(for: input, sigma: sigma))
    }
}

extension ImageProcessors.Pixelate: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint { .inPlace(input) }
}

extension ImageProcessors.Background: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint { .inPlace(input) }
}

extension ImageProcessors.RoundedCorners: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint { .inPlace(input) }
}

extension ImageProcessors.Overlay: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint {
        // The overlay made upright, and scaled to a share of the width: at most the input again.
        .inPlace(input, scratch: image.width * image.height + (scale > 0 ? input.pixelCount : 0))
    }
}

extension ImageProcessors.Circle: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint {
        let side = Swift.min(input.width, input.height)
        return .copying(input, to: PixelSize(width: side, height: side))
    }
}

extension ImageProcessors.Crop: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint {
        .copying(input, to: PixelSize(width: Swift.max(1, Swift.min(width, input.width)), height: Swift.max(1, Swift.min(height, input.height))))
    }
}

extension ImageProcessors.Trim: FootprintEstimating {
    /// At most the whole image: the border is only known once the pixels are read.
    package func footprint(for input: PixelSize) -> ProcessingFootprint { .copying(input, to: input) }
}

extension ImageProcessors.Fill: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint {
        guard let plan = try? Resize.fill(width: width, height: height).plan(for: input, allowsUpscaling: allowsUpscaling) else {
            return .copying(input, to: input)
        }
        return .copying(input, to: plan.outputSize, scratch: LanczosResampler.scratchPixels(source: input, output: plan.outputSize))
    }
}

extension ImageProcessors.Pad: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint {
        .copying(input, to: PixelSize(width: Swift.max(width, input.width), height: Swift.max(height, input.height)))
    }
}

extension ImageProcessors.Padding: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint {
        .copying(input, to: PixelSize(width: input.width + left + right, height: input.height + top + bottom))
    }
}

extension ImageProcessors.Rotate: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint {
        let turned = (degrees / 90) % 2 != 0
        return .copying(input, to: turned ? PixelSize(width: input.height, height: input.width) : input)
    }
}

extension ImageProcessors.Flip: FootprintEstimating {
    package func footprint(for input: PixelSize) -> ProcessingFootprint { .copying(input, to: input) }
}
