import Imagery

/// `max_result_dimension` (and `IMAGERY_MAX_RESULT_DIMENSION`): a result with a side longer than
/// ``side`` is scaled down, keeping its aspect ratio, until it fits, as imgproxy scales rather
/// than refuses. Last in the plan, so padding and extensions are scaled with the image, as
/// imgproxy's whole geometry is; it never enlarges.
struct ImgproxyFitWithin: ImageProcessing, Hashable {
    var side: Int

    var identifier: String { "fit-within(\(side))" }

    func process(_ image: Bitmap) throws(ImageError) -> Bitmap {
        guard max(image.width, image.height) > side else { return image }
        return try image.resized(.fit(width: side, height: side), allowsUpscaling: false)
    }
}
