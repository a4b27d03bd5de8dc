import Imagery

/// imgproxy's processing order, as ``ImgproxyPlan`` applies it and ``ImgproxyURLBuilder`` maps
/// an app's processors onto it: crop the source, resize, rotate, extend, blur, sharpen, flatten;
/// Imagery's own `circle` comes last, so its edge stays transparent. Written once, here.
package enum ImgproxyStep: Int, Sendable, CaseIterable, Comparable {
    case crop, resize, rotate, flip, extend, blur, sharpen, pixelate, padding, background, circle

    package static func < (lhs: ImgproxyStep, rhs: ImgproxyStep) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The resize box for the source before rotating: imgproxy fits the box to the rotated
    /// image, Imagery resizes and then rotates, so a quarter turn swaps the box. Its own inverse.
    package static func box(width: Int, height: Int, rotation: Int) -> (width: Int, height: Int) {
        rotation == 90 || rotation == 270 ? (height, width) : (width, height)
    }
}

/// What one imgproxy URL asks of the pipeline and of the encoder: the `ImageRequest` (its
/// source, its resize while decoding, its processors in ``ImgproxyStep`` order) and how to
/// write the result.
///
/// The resize happens while decoding (with DCT scaling) whenever it can: fit, or fill from the
/// centre, with no crop before it; otherwise it runs as a processor.
package struct ImgproxyPlan: Sendable {
    /// The server's answers to what a URL leaves unsaid.
    package struct Defaults: Sendable, Hashable {
        /// The quality when the URL gives none, 1–100.
        package var quality: Int
        /// The largest source, in pixels.
        package var maximumPixelCount: Int
        /// The formats this build writes.
        package var writableFormats: Set<ImageFormat>
        /// The limits an animated source is decoded under, or `nil` to serve its first frame.
        package var animation: AnimationLimits?
        /// The formats this build writes animations in.
        package var animatedFormats: Set<ImageFormat>

        package init(
            quality: Int, maximumPixelCount: Int, writableFormats: Set<ImageFormat>,
            animation: AnimationLimits? = nil, animatedFormats: Set<ImageFormat> = []
        ) {
            self.quality = quality
            self.maximumPixelCount = maximumPixelCount
            self.writableFormats = writableFormats
            self.animation = animation
            self.animatedFormats = animatedFormats
        }
    }

    package var request: ImageRequest
    /// From the extension or `format`; `nil` leaves it to `Accept` and the image's alpha.
    package var format: ImageFormat?
    /// 1–100.
    package var quality: Int
    /// The flattening colour for formats without alpha.
    package var background: RGBA
    /// When the URL stops being served (Unix seconds), if it says.
    package var expires: Int?
    /// Qualities for particular output formats, over ``quality``.
    package var formatQuality: [ImageFormat: Int]
    /// The largest lossy body wanted, in bytes; 0 for no limit.
    package var maximumBytes: Int

    package init(
        options: ImgproxyOptions, source: ImageSource, fileExtension: String?, defaults: Defaults
    ) throws(ImgproxyError) {
        let box = ImgproxyStep.box(width: options.targetWidth, height: options.targetHeight, rotation: options.rotate)
        var request = ImageRequest(source: source)
        request.maximumPixelCount = defaults.maximumPixelCount
        request.allowsUpscaling = options.enlarge
        let resizer = ImgproxyResize(
            type: options.resizingType, width: box.width, height: box.height, enlarge: options.enlarge, gravity: options.gravity
        )
        var processors: [any ImageProcessing] = []
        for step in ImgproxyStep.allCases {
            switch step {
            case .crop:
                if let crop = options.crop {
                    processors.append(ImgproxyCrop(width: crop.width, height: crop.height, gravity: crop.gravity ?? options.gravity))
                }
            case .resize:
                if let resize = resizer.decodeResize, options.crop == nil {
                    request.resize = resize
                } else if box.width > 0 || box.height > 0 {
                    processors.append(resizer)
                }
            case .rotate:
                if options.rotate != 0 { processors.append(.rotate(degrees: options.rotate)) }
            case .flip:
                if options.flipsHorizontally { processors.append(.flip(.horizontal)) }
                if options.flipsVertically { processors.append(.flip(.vertical)) }
            case .extend:
                if options.extend, options.targetWidth > 0, options.targetHeight > 0 {
                    processors.append(.pad(
                        width: options.targetWidth, height: options.targetHeight,
                        color: options.background ?? RGBA(red: 0, green: 0, blue: 0, alpha: 0), gravity: options.extendGravity
                    ))
                }
            case .blur:
                if options.blur > 0 { processors.append(.blur(sigma: options.blur)) }
            case .sharpen:
                if options.sharpen > 0 { processors.append(.sharpen(sigma: options.sharpen)) }
            case .pixelate:
                if options.pixelate > 1 { processors.append(.pixelate(options.pixelate)) }
            case .padding:
                if let padding = options.padding {
                    func scaled(_ side: Int) -> Int { Int((Double(side) * options.dpr).rounded()) }
                    processors.append(.padding(
                        top: scaled(padding.top), right: scaled(padding.right), bottom: scaled(padding.bottom), left: scaled(padding.left),
                        color: options.background ?? RGBA(red: 0, green: 0, blue: 0, alpha: 0)
                    ))
                }
            case .background:
                if let background = options.background { processors.append(.background(background)) }
            case .circle:
                if options.circle { processors.append(.circle) }
            }
        }
        request.processors = processors

        if let fileExtension, !fileExtension.isEmpty {
            guard let format = ImageFormat(imgproxyExtension: fileExtension), defaults.writableFormats.contains(format) else {
                throw ImgproxyError(.unsupportedFormat, "extension: unsupported format \(fileExtension.prefix(20))")
            }
            self.format = format
        } else if let format = options.format {
            guard defaults.writableFormats.contains(format) else {
                throw ImgproxyError(.unsupportedFormat, "format: unsupported format \(format.imgproxyExtension)")
            }
            self.format = format
        } else {
            self.format = nil
        }
        // Every request asks for the animation, whatever its format, so that responses in other
        // formats share one decode; a still format then takes the first frame (the poster).
        if !defaults.animatedFormats.isEmpty { request.animation = defaults.animation }
        self.request = request
        self.quality = options.quality > 0 ? options.quality : defaults.quality
        self.background = options.background ?? .white
        self.expires = options.expires
        self.formatQuality = options.formatQuality
        self.maximumBytes = options.maximumBytes
    }

    /// Everything that decides the output, as one string: two plans with the same identity
    /// make the same image and bytes.
    package var identity: String {
        var parts = [request.source.identity, request.resize?.identifier ?? "original", String(request.allowsUpscaling)]
        parts.append(request.processors.cacheIdentifier)
        if let animation = request.animation {
            parts.append("animation:\(animation.maximumFrameCount):\(animation.maximumFramePixelCount ?? 0):\(animation.delivery)")
        }
        parts.append(format?.rawValue ?? "negotiated")
        parts.append(String(quality))
        parts.append(formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ","))
        parts.append(String(maximumBytes))
        parts.append(background.identifier)
        return parts.joined(separator: "|")
    }
}

extension ImgproxyResize {
    /// The resize the decode stage can do itself, or `nil` when it must run as a processor.
    var decodeResize: Resize? {
        switch (width, height) {
        case (0, 0): return nil
        case let (width, 0): return .width(width)
        case let (0, height): return .height(height)
        case let (width, height):
            switch type {
            case .fit: return .fit(width: width, height: height)
            case .fill where gravity == .center: return .fill(width: width, height: height)
            default: return nil
            }
        }
    }
}
