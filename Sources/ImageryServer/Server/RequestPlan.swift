import Imagery

/// What one server request asks of the pipeline and of the encoder: the `ImageRequest` (its
/// source, its resize while decoding, its processors) and how to write the result.
///
/// imgproxy's order is kept: crop the source, resize, rotate, extend, blur, sharpen, flatten;
/// Imagery's `circle` comes last, so its edge stays transparent.
/// The resize happens while decoding (with DCT scaling) whenever it can: fit, or fill from the
/// centre, with no crop before it. A rotation of 90 or 270 degrees swaps the box first, so the
/// box applies to the rotated image, as in imgproxy.
struct RequestPlan {
    var request: ImageRequest
    /// From the extension or `f:`; `nil` leaves it to `Accept` and the image's alpha.
    var format: OutputFormat?
    /// 1–100; the server's default when the URL gives none.
    var quality: Int
    /// Flattening colour for formats without alpha.
    var background: RGBA

    init(
        source: ImageSource, options: ProcessingOptions, fileExtension: String?,
        defaultQuality: Int, maximumPixelCount: Int
    ) throws(ServerError) {
        let swapped = options.rotate == 90 || options.rotate == 270
        let boxWidth = swapped ? options.targetHeight : options.targetWidth
        let boxHeight = swapped ? options.targetWidth : options.targetHeight

        var request = ImageRequest(source: source)
        request.maximumPixelCount = maximumPixelCount
        request.allowsUpscaling = options.enlarge
        var processors: [any ImageProcessing] = []
        if let crop = options.crop {
            processors.append(ImgproxyCrop(width: crop.width, height: crop.height, gravity: crop.gravity ?? options.gravity))
        }
        let resizer = ImgproxyResize(
            type: options.resizingType, width: boxWidth, height: boxHeight, enlarge: options.enlarge, gravity: options.gravity
        )
        if let resize = Self.decodeResize(resizer), options.crop == nil {
            request.resize = resize
        } else if boxWidth > 0 || boxHeight > 0 {
            processors.append(resizer)
        }
        if options.rotate != 0 { processors.append(.rotate(degrees: options.rotate)) }
        if options.extend, options.targetWidth > 0, options.targetHeight > 0 {
            processors.append(.pad(
                width: options.targetWidth, height: options.targetHeight,
                color: options.background ?? RGBA(red: 0, green: 0, blue: 0, alpha: 0), gravity: options.extendGravity
            ))
        }
        if options.blur > 0 { processors.append(.blur(sigma: options.blur)) }
        if options.sharpen > 0 { processors.append(.sharpen(sigma: options.sharpen)) }
        if let background = options.background { processors.append(.background(background)) }
        if options.circle { processors.append(.circle) }
        request.processors = processors
        self.request = request

        if let fileExtension, !fileExtension.isEmpty {
            guard let format = OutputFormat(extension: fileExtension) else {
                throw .badRequest("extension: unsupported format \(fileExtension.prefix(20))")
            }
            self.format = format
        } else {
            self.format = options.format
        }
        self.quality = options.quality > 0 ? options.quality : defaultQuality
        self.background = options.background ?? .white
    }

    /// The resize the decode stage can do itself, or `nil` when the resize must run as a processor.
    private static func decodeResize(_ resizer: ImgproxyResize) -> Resize? {
        switch (resizer.width, resizer.height) {
        case (0, 0): return nil
        case let (width, 0): return .width(width)
        case let (0, height): return .height(height)
        case let (width, height):
            switch resizer.type {
            case .fit: return .fit(width: width, height: height)
            case .fill where resizer.gravity == .center: return .fill(width: width, height: height)
            default: return nil
            }
        }
    }
}
