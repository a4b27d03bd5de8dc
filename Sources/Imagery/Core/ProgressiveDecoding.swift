/// Makes previews of an image while its bytes arrive: the role behind progressive previews
/// (``ImagePipeline/Configuration/isProgressiveDecodingEnabled``).
///
/// ``ImageDecoding/progressiveDecoder(resize:allowsUpscaling:options:)`` makes one per image;
/// the pipeline hands it the bytes in order, from one task at a time, and asks for a preview
/// at most once an interval. ImageryCodecs' decoder makes them for progressive JPEG through
/// libjpeg-turbo's buffered-image mode, ImageIO's decoder through an incremental image source.
///
/// ```swift
/// if let previews = decoder.progressiveDecoder(resize: .fit(width: 400, height: 400), allowsUpscaling: false, options: DecodingOptions()) {
///     for chunk in chunks {
///         try previews.append(chunk)
///         if let preview = try previews.preview() { show(preview) }
///     }
/// }
/// ```
public protocol ProgressiveDecoding: AnyObject {
    /// Takes the next bytes of the file.
    ///
    /// - Throws: ``ImageError`` when the bytes cannot be (the start of) an image this decoder
    ///   reads, or break its limits; no more previews follow, and the final decode reports
    ///   what is wrong with the whole file.
    func append(_ bytes: [UInt8]) throws(ImageError)

    /// A picture of what has arrived when it shows more than the last one did (a progressive
    /// JPEG's next scan), otherwise `nil`: upright, in sRGB, at least the size the decoder was
    /// made for where the image allows. A file that is not progressive gives none.
    func preview() throws(ImageError) -> Bitmap?
}
