import Imagery

extension ImgproxyURLBuilder {
    /// The options that say `request`'s resize and the longest prefix of its processors the
    /// server applies in ``ImgproxyStep`` order, each step at most once, and how many
    /// processors that prefix holds.
    static func options(for request: ImageRequest) -> (options: ImgproxyOptions, processorsApplied: Int) {
        var options = ImgproxyOptions()
        var applied = 0
        var last: ImgproxyStep?
        for processor in request.processors {
            guard let step = step(for: processor, into: &options, after: last) else { break }
            last = step
            applied += 1
        }
        if let resize = request.resize {
            let (width, height): (Int, Int)
            switch resize {
            case let .fit(boxWidth, boxHeight), let .fill(boxWidth, boxHeight):
                options.resizingType = if case .fill = resize { .fill } else { .fit }
                (width, height) = (boxWidth, boxHeight)
            case let .width(length): (width, height) = (length, 0)
            case let .height(length): (width, height) = (0, length)
            }
            (options.width, options.height) = ImgproxyStep.box(width: width, height: height, rotation: options.rotate)
            options.enlarge = request.allowsUpscaling
        }
        return (options, applied)
    }

    /// Writes `processor` into `options` when the server applies it, as a step after `last`.
    private static func step(
        for processor: any ImageProcessing, into options: inout ImgproxyOptions, after last: ImgproxyStep?
    ) -> ImgproxyStep? {
        func next(_ step: ImgproxyStep) -> Bool { last.map { $0 < step } ?? true }
        switch processor {
        case let rotate as ImageProcessors.Rotate where next(.rotate) && rotate.degrees % 90 == 0:
            options.rotate = ((rotate.degrees % 360) + 360) % 360
            return .rotate
        case let flip as ImageProcessors.Flip where next(.flip) || last == .flip:
            // The two mirrors commute: one step writes both, each at most once.
            switch flip.axis {
            case .horizontal where !options.flipsHorizontally: options.flipsHorizontally = true
            case .vertical where !options.flipsVertically: options.flipsVertically = true
            default: return nil
            }
            return .flip
        case let blur as ImageProcessors.GaussianBlur
            where next(.blur) && blur.sigma > 0 && blur.sigma <= ImgproxyLimits.maximumBlurSigma:
            options.blur = blur.sigma
            return .blur
        case let sharpen as ImageProcessors.Sharpen
            where next(.sharpen) && sharpen.amount == 1 && sharpen.threshold == 0
                && sharpen.sigma > 0 && sharpen.sigma <= ImgproxyLimits.maximumSharpenSigma:
            options.sharpen = sharpen.sigma
            return .sharpen
        case let flatten as ImageProcessors.Background where next(.background) && flatten.color.alpha == 255:
            options.background = flatten.color
            return .background
        default:
            return nil
        }
    }
}
