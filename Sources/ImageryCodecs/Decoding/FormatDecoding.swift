import Imagery

/// One format's decoder. It returns pixels in stored orientation (with
/// `Bitmap/orientation` set from EXIF) and the raw ICC profile; ``ImageDecoder``
/// applies orientation and colour conversion, or the thumbnail path defers them to
/// after resampling, where they are cheap.
protocol FormatDecoding: Sendable {
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage
}

struct DecodedImage: Sendable {
    var bitmap: Bitmap
    var iccProfile: [UInt8]?
}
