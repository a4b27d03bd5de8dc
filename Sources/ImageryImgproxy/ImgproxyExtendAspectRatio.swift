import Imagery

/// `extend_aspect_ratio`: pads the result to the box's aspect ratio, at the smallest size that
/// holds it, where `extend` pads to the box's size. Sized by the image it gets, so it is a
/// processor of its own rather than a ``ImageProcessors/Pad`` fixed in the plan.
struct ImgproxyExtendAspectRatio: ImageProcessing, Hashable {
    /// The box whose aspect ratio is kept.
    var width: Int
    var height: Int
    var color: RGBA
    var gravity: Gravity

    var identifier: String { "extend-aspect-ratio(\(width)x\(height),\(color.identifier),\(gravity.identifier))" }

    func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
        // Widen a too-tall image, heighten a too-wide one; an exact match is left alone.
        let wide = image.width * height, tall = image.height * width
        guard wide != tall else { return image.prepared }
        let padded = wide > tall
            ? (image.width, (image.width * height + width - 1) / width)
            : ((image.height * width + height - 1) / height, image.height)
        return try ImageProcessors.Pad(width: padded.0, height: padded.1, color: color, gravity: gravity).process(image)
    }
}
