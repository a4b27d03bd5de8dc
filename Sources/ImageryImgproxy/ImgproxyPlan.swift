import Foundation
import Imagery

/// imgproxy's processing order, as ``ImgproxyPlan`` applies it and ``ImgproxyURLBuilder`` maps
/// an app's processors onto it: trim and crop the source, resize, rotate, flip, extend, filter,
/// pad, flatten, watermark; Imagery's own `circle` comes last, so its edge stays transparent.
/// Written once, here.
package enum ImgproxyStep: Int, Sendable, CaseIterable, Comparable {
    case trim, crop, resize, rotate, flip, extend, extendAspectRatio, blur, sharpen, pixelate, padding, background, watermark, circle

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
        /// The server's watermark, for `watermark`/`wm`; URLs that ask for one without it get
        /// none, as from imgproxy.
        package var watermark: Watermark?
        /// Qualities per output format, over ``quality`` (`IMAGERY_FORMAT_QUALITY`).
        package var formatQuality: [ImageFormat: Int]
        /// The largest side of a result, which is scaled down to fit (`IMAGERY_MAX_RESULT_DIMENSION`);
        /// 0 for no limit. A URL's `max_result_dimension` may only lower it.
        package var maximumResultDimension = 0
        /// Source formats served as they are when the URL asks for no other format
        /// (`IMAGERY_SKIP_PROCESSING_FORMATS`), beside the URL's own `skip_processing`.
        package var skipProcessingFormats: Set<ImageFormat> = []
        /// The server's autoquality (`IMAGERY_AUTOQUALITY_*`); its method `nil` or `none`
        /// chooses no quality unless a URL asks.
        package var autoQuality = ImgproxyAutoQuality.Defaults()

        package init(
            quality: Int, maximumPixelCount: Int, writableFormats: Set<ImageFormat>,
            animation: AnimationLimits? = nil, animatedFormats: Set<ImageFormat> = [], watermark: Watermark? = nil,
            formatQuality: [ImageFormat: Int] = [:]
        ) {
            self.formatQuality = formatQuality
            self.quality = quality
            self.maximumPixelCount = maximumPixelCount
            self.writableFormats = writableFormats
            self.animation = animation
            self.animatedFormats = animatedFormats
            self.watermark = watermark
        }
    }

    /// A server's watermark image, read once at start. Equal when their identities and
    /// opacities are: the identity is a digest of the image.
    package struct Watermark: Sendable, Hashable {
        package static func == (lhs: Watermark, rhs: Watermark) -> Bool {
            lhs.identity == rhs.identity && lhs.opacity == rhs.opacity
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(identity)
            hasher.combine(opacity)
        }

        package var image: Bitmap
        /// Names the image in cache keys: a digest of its bytes.
        package var identity: String
        /// `IMAGERY_WATERMARK_OPACITY`, which each URL's opacity multiplies.
        package var opacity: Double

        package init(image: Bitmap, identity: String, opacity: Double) {
            self.image = image
            self.identity = identity
            self.opacity = opacity
        }
    }

    /// Source bytes served as they are: `raw`, or `skip_processing` for these formats.
    package enum Bypass: Sendable, Hashable {
        case raw
        case formats(Set<ImageFormat>)

        /// Whether a source in `format` (`nil` when unrecognised) is served untouched, when the
        /// URL asks for `requested`: a skipped format only as itself, or when none is asked
        /// for, as imgproxy skips.
        package func skips(_ format: ImageFormat?, requested: ImageFormat? = nil) -> Bool {
            switch self {
            case .raw: true
            case let .formats(formats): format.map { formats.contains($0) && (requested == nil || requested == $0) } ?? false
            }
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
    /// Whether the source may be served untouched.
    package var bypass: Bypass?
    /// `max_src_file_size`: the largest source, in bytes; 0 for the server's own limit.
    package var maximumSourceBytes: Int
    /// `max_result_dimension`: the largest side of the result; 0 for no limit.
    package var maximumResultDimension: Int
    /// `Content-Disposition`'s name without extension (`filename`, else the source's own), and
    /// whether it is an attachment.
    package var filename: String
    package var returnsAttachment: Bool
    /// `aq` with the server's defaults filled in; `nil` for a fixed quality.
    package var autoQuality: ImgproxyAutoQuality?
    /// `format:best`: every candidate format encoded, the smallest answered.
    package var bestFormat: Bool
    /// The server's autoquality: its per-format and plain ranges, and its resolution limit.
    package var autoQualityDefaults = ImgproxyAutoQuality.Defaults()
    /// What of the source's metadata the answer keeps.
    package var metadata = ImgproxyMetadata()

    package init(
        options: ImgproxyOptions, source: ImageSource, fileExtension: String?, defaults: Defaults
    ) throws(ImgproxyError) {
        let box = ImgproxyStep.box(width: options.targetWidth, height: options.targetHeight, rotation: options.rotate)
        var request = ImageRequest(source: source)
        // A cache buster asks for the source again, as it does of imgproxy, which caches
        // nothing: keyed apart in the pipeline's caches and coalescing, a new one is fetched
        // and processed anew, and the same one again is a hit.
        if let cacheBuster = options.cacheBuster { request.cacheIdentity = source.identity + "#cachebuster=" + cacheBuster }
        request.maximumPixelCount = defaults.maximumPixelCount
        if options.security.sourceMegapixels > 0 {
            request.maximumPixelCount = min(request.maximumPixelCount, Int(options.security.sourceMegapixels * 1_000_000))
        }
        request.allowsUpscaling = options.enlarge
        let zoom = ImgproxyStep.box(width: 1, height: 1, rotation: options.rotate).width == 1
            ? (options.zoomWidth, options.zoomHeight) : (options.zoomHeight, options.zoomWidth)
        let minimum = ImgproxyStep.box(
            width: Int((Double(options.minWidth) * options.dpr).rounded()), height: Int((Double(options.minHeight) * options.dpr).rounded()),
            rotation: options.rotate
        )
        let resizer = ImgproxyResize(
            type: options.resizingType, width: box.width, height: box.height, enlarge: options.enlarge, gravity: options.gravity,
            minWidth: minimum.width, minHeight: minimum.height, zoomWidth: zoom.0, zoomHeight: zoom.1
        )
        var processors: [any ImageProcessing] = []
        for step in ImgproxyStep.allCases {
            switch step {
            case .trim:
                if let trim = options.trim { processors.append(trim) }
            case .crop:
                if let crop = options.crop {
                    processors.append(ImgproxyCrop(width: crop.width, height: crop.height, gravity: crop.gravity ?? options.gravity))
                }
            case .resize:
                if let resize = resizer.decodeResize, options.crop == nil, options.trim == nil {
                    request.resize = resize
                } else if box.width > 0 || box.height > 0 || resizer.isScaled {
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
            case .extendAspectRatio:
                if options.extendsAspectRatio, options.targetWidth > 0, options.targetHeight > 0 {
                    processors.append(ImgproxyExtendAspectRatio(
                        width: options.targetWidth, height: options.targetHeight,
                        color: options.background ?? RGBA(red: 0, green: 0, blue: 0, alpha: 0), gravity: options.extendAspectRatioGravity
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
            case .watermark:
                if let watermark = options.watermark, let image = defaults.watermark {
                    processors.append(.overlay(
                        image.image, identity: image.identity, gravity: watermark.position.map { $0.scaledOffsets(by: options.dpr) },
                        opacity: min(1, watermark.opacity * image.opacity), scale: watermark.scale
                    ))
                }
            case .circle:
                if options.circle { processors.append(.circle) }
            }
        }
        // Either limit, whichever is lower: a URL may only lower the server's.
        let dimension = [options.security.resultDimension, defaults.maximumResultDimension].filter { $0 > 0 }.min() ?? 0
        if dimension > 0 { processors.append(ImgproxyFitWithin(side: dimension)) }
        request.processors = processors
        request.ignoresEXIFOrientation = !options.autoRotate
        request.keptMetadata = options.metadata.kept
        metadata = options.metadata
        request.prefersEmbeddedThumbnail = options.enforcesThumbnail
        request.priority = Self.priority(box: box, dimension: dimension)

        if fileExtension == "best" || (fileExtension ?? "").isEmpty && options.bestFormat {
            self.format = nil
        } else if let fileExtension, !fileExtension.isEmpty {
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
        if !defaults.animatedFormats.isEmpty, var animation = defaults.animation {
            if options.security.animationFrames > 0 {
                animation.maximumFrameCount = min(animation.maximumFrameCount, options.security.animationFrames)
            }
            if options.security.animationFrameMegapixels > 0 {
                let pixels = Int(options.security.animationFrameMegapixels * 1_000_000)
                animation.maximumFramePixelCount = min(animation.maximumFramePixelCount ?? pixels, pixels)
            }
            request.animation = animation
        }
        self.request = request
        self.quality = options.quality > 0 ? options.quality : defaults.quality
        self.background = options.background ?? .white
        self.expires = options.expires
        // A URL's fq, then its q, then the server's quality for the format, then its quality.
        self.formatQuality = options.quality > 0
            ? options.formatQuality : defaults.formatQuality.merging(options.formatQuality) { $1 }
        self.maximumBytes = options.maximumBytes
        self.bestFormat = fileExtension == "best" || options.bestFormat
        // The URL's minimum and maximum stay its own: the server's per-format ranges come between
        // them and the server's plain ones (qualityTarget(for:pixels:)).
        var autoQuality = (options.autoQuality ?? ImgproxyAutoQuality()).filled(from: defaults.autoQuality.quality)
        autoQuality.minimumQuality = options.autoQuality?.minimumQuality
        autoQuality.maximumQuality = options.autoQuality?.maximumQuality
        if let refusal = autoQuality.refusal { throw ImgproxyError(.invalidOption, "invalid option autoquality: \(refusal)") }
        self.autoQuality = [nil, ImgproxyAutoQuality.Method.none].contains(autoQuality.method) ? nil : autoQuality
        self.autoQualityDefaults = defaults.autoQuality
        let skipped = options.skipProcessing.union(defaults.skipProcessingFormats)
        self.bypass = options.raw ? .raw : skipped.isEmpty ? nil : .formats(skipped)
        self.maximumSourceBytes = options.security.sourceBytes
        self.maximumResultDimension = dimension
        self.filename = options.filename ?? Self.basename(of: source)
        self.returnsAttachment = options.returnsAttachment
    }

    /// The last path component of a source URL without its extension, as imgproxy names a
    /// response; `image` when the URL has none.
    static func basename(of source: ImageSource) -> String {
        let name = switch source.kind {
        case let .url(url, _): url.deletingPathExtension().lastPathComponent
        case let .file(path): URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        case .custom: ""
        }
        return name.isEmpty || name == "/" ? "image" : name
    }

    /// Everything that decides the answer, as one value: two plans with equal identities make
    /// the same image, the same bytes and the same headers.
    ///
    /// It is read off the plan's stored properties, every one of them, so that a property added
    /// later is part of it without anyone remembering to add it here: the string this replaces
    /// listed them by hand and had lost autoquality, `format:best` and the metadata kept. Of the
    /// request it takes what reaches the answer (``RequestIdentity``). `ImgproxyPlanIdentityTests`
    /// changes each property in turn and sees the identity change.
    package var identity: [String: AnyHashable] {
        var parts: [String: AnyHashable] = [:]
        for child in Mirror(reflecting: self).children {
            guard let label = child.label else { continue }
            switch child.value {
            case let request as ImageRequest:
                parts[label] = AnyHashable(RequestIdentity(request))
            case let value as any Hashable:
                parts[label] = AnyHashable(value)
            default:
                preconditionFailure("ImgproxyPlan.\(label) is not Hashable, so the plan's identity cannot hold it")
            }
        }
        return parts
    }

    /// What of a request reaches the answer: the source and the identity it is cached under, the
    /// decode options whole, the pixel limit (an image, or a refusal) and the processors. Not its
    /// priority, cache options, placeholder or previews, which change when a caller is answered,
    /// not with what.
    package struct RequestIdentity: Hashable {
        let source: String
        let cacheIdentity: String?
        let decodeOptions: ImageRequest.DecodeOptions
        let maximumPixelCount: Int
        let processors: String

        init(_ request: ImageRequest) {
            source = request.source.identity
            cacheIdentity = request.cacheIdentity
            decodeOptions = request.decodeOptions
            maximumPixelCount = request.maximumPixelCount
            processors = request.processors.cacheIdentifier
        }
    }
}

extension ImgproxyResize {
    /// The resize the decode stage can do itself, or `nil` when it must run as a processor.
    var decodeResize: Resize? {
        guard !isScaled else { return nil }
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

extension ImgproxyPlan {
    /// What autoquality chooses an image of `pixels` in `format` for, or `nil` for the plan's
    /// fixed quality: no `aq`, a format with no quality (PNG, GIF, BMP), or an image over the
    /// server's autoquality resolution. A URL's minimum and maximum win over the server's
    /// per-format ones, which win over its plain ones; `ml` searches as `dssim`, as imgproxy
    /// does without a model.
    package func qualityTarget(for format: ImageFormat, pixels: Int) -> QualityTarget? {
        guard let autoQuality, let method = autoQuality.method, [.jpeg, .webp, .avif, .heic, .jxl].contains(format) else { return nil }
        let server = autoQualityDefaults
        if server.maximumMegapixels > 0, Double(pixels) > server.maximumMegapixels * 1_000_000 { return nil }
        let low = autoQuality.minimumQuality ?? server.formatMinimum[format] ?? server.quality.minimumQuality ?? 70
        let high = max(low, autoQuality.maximumQuality ?? server.formatMaximum[format] ?? server.quality.maximumQuality ?? 80)
        switch method {
        case .none: return nil
        case .size: return QualityTarget(.bytes(Int(autoQuality.target ?? 0)), qualities: low...high)
        case .dssim, .ml: return QualityTarget(.dssim(autoQuality.target ?? 0.02, allowedError: autoQuality.allowedError ?? 0.002), qualities: low...high)
        }
    }
}
