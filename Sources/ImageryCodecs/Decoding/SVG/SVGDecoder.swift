#if SVG
import CImagerySVG
import Imagery

/// SVG through librsvg and cairo (the `SVG` package trait), rendered straight at the size asked
/// for: a draft (a resize) is the render's size, larger than the document's own too, since a
/// vector needs no source pixels to scale from; with none, the document's own size.
///
/// The document is first sanitized and measured (``SVGSanitizer``, ``SVGLimits``): librsvg
/// renders only the rewritten document, with no base URL, so it loads nothing but the `data:`
/// images the sanitizer kept (PNG and baseline JPEG within the pixel limit), and nothing it
/// renders can outgrow the limits, since a render cannot be stopped once started.
///
/// The size is the root's `width` and `height` in absolute units at 96 dpi; when they are
/// missing or percentages, the `viewBox`'s width and height as pixels; with neither, 300 × 150,
/// the default size CSS gives an object. A render over the pixel limit is scaled down to fit
/// it, as imgproxy does, rather than refused: a 200,000 × 200,000 canvas renders at 10,000 ×
/// 10,000 under the default limit.
///
/// Text is drawn through fontconfig and Pango with the system's fonts (Debian's
/// `fonts-dejavu-core`); a machine with no font at all draws no text, and the rest of the
/// document as usual.
struct SVGDecoder: FormatDecoding {
    var limits: SVGLimits

    /// CSS's default object size, for a document that states neither a size nor a `viewBox`.
    static let defaultSize = (width: 300.0, height: 150.0)

    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        let document = try SVGSanitizer.document(Array(bytes), limits: limits, maximumImagePixels: options.maximumPixelCount)
        var message = [CChar](repeating: 0, count: 512)
        var loaded: OpaquePointer?
        let status = document.bytes.withUnsafeBufferPointer { data in
            message.withUnsafeMutableBufferPointer {
                img_svg_load(data.baseAddress, data.count, limits.maximumBytes == nil ? 1 : 0, &loaded, $0.baseAddress, $0.count)
            }
        }
        guard status == IMG_SVG_OK, let handle = loaded else { throw .corrupt(.svg, detail: "librsvg: " + Self.text(message)) }
        defer { img_svg_free(handle) }
        var declared = ImgSvgSize()
        img_svg_size(handle, &declared)
        let intrinsic = try Self.intrinsicSize(declared)
        let original = PixelSize(width: max(1, Int(intrinsic.width.rounded(.up))), height: max(1, Int(intrinsic.height.rounded(.up))))
        let output = Self.renderSize(original: original, draft: options.draft, pixelLimit: options.maximumPixelCount)

        // Filters are the one part of a render whose time grows faster than its pixels.
        let userUnit = declared.has_viewbox != 0 && declared.viewbox_width > 0 && declared.viewbox_height > 0
            ? max(Double(output.width) / declared.viewbox_width, Double(output.height) / declared.viewbox_height)
            : Double(output.width) / intrinsic.width
        let work = Self.filterWork(document.measure, pixels: output.width * output.height, userUnit: userUnit)
        guard work <= Double(limits.maximumFilterWork) else {
            throw .corrupt(.svg, detail: "its filters would run \(Int(min(work, 1e18))) primitive-pixels at \(output.width)x\(output.height), over the limit of \(limits.maximumFilterWork)")
        }

        var pixels = [UInt8](repeating: 0, count: output.width * output.height * 4)
        let rendered = pixels.withUnsafeMutableBufferPointer { buffer in
            message.withUnsafeMutableBufferPointer {
                img_svg_render(handle, buffer.baseAddress, Int32(output.width), Int32(output.height), Int32(output.width * 4), $0.baseAddress, $0.count)
            }
        }
        guard rendered == IMG_SVG_OK else { throw .corrupt(.svg, detail: "librsvg could not render it: " + Self.text(message)) }
        let metadata = ImageMetadata(
            format: .svg, originalWidth: original.width, originalHeight: original.height,
            decodeScale: Double(output.width) / Double(original.width)
        )
        return DecodedImage(
            bitmap: Bitmap(width: output.width, height: output.height, pixels: pixels, alphaMode: .premultiplied, metadata: metadata),
            iccProfile: nil
        )
    }

    /// The size in pixels the document states, or the default; sides over a billion pixels are refused.
    static func intrinsicSize(_ size: ImgSvgSize) throws(ImageError) -> (width: Double, height: Double) {
        func valid(_ width: Double, _ height: Double) -> Bool { width.isFinite && height.isFinite && width > 0 && height > 0 }
        let stated: (width: Double, height: Double)
        if size.has_size != 0 {
            stated = (size.width, size.height)
        } else if size.has_viewbox != 0 {
            stated = (size.viewbox_width, size.viewbox_height)
        } else {
            return defaultSize
        }
        guard valid(stated.width, stated.height) else { throw .corrupt(.svg, detail: "the document declares an empty size") }
        guard stated.width <= 1e9, stated.height <= 1e9 else {
            throw .corrupt(.svg, detail: "the document declares \(stated.width)x\(stated.height) pixels")
        }
        return stated
    }

    /// The size the render is drawn at: `draft`'s (a fill covers its box whole, and is cropped
    /// afterwards), else the document's own; scaled down, keeping its shape, to the pixel limit.
    static func renderSize(original: PixelSize, draft: Resize?, pixelLimit: Int) -> PixelSize {
        var width = Double(original.width), height = Double(original.height)
        if let draft, let plan = try? draft.plan(for: original, allowsUpscaling: true) {
            if plan.sourceRect.width == width, plan.sourceRect.height == height {
                (width, height) = (Double(plan.outputSize.width), Double(plan.outputSize.height))
            } else {
                (width, height) = ((width * plan.scale).rounded(), (height * plan.scale).rounded())
            }
        }
        if width * height > Double(pixelLimit) {
            let shrink = (Double(pixelLimit) / (width * height)).squareRoot()
            (width, height) = ((width * shrink).rounded(.down), (height * shrink).rounded(.down))
        }
        return PixelSize(width: max(1, Int(width)), height: max(1, Int(height)))
    }

    /// Primitive-pixels (see ``SVGLimits/maximumFilterWork``) over the whole render, the largest
    /// region any filter can cover.
    static func filterWork(_ measure: SVGReferenceGraph.Measure, pixels: Int, userUnit: Double) -> Double {
        let morphology = measure.morphologyRadii.reduce(0.0) { sum, radius in
            let side = 2 * radius * userUnit + 1
            return sum + max(1, side * side / 64)
        }
        return Double(pixels) * (measure.filterWeight + morphology)
    }

    private static func text(_ message: [CChar]) -> String {
        message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
#endif
