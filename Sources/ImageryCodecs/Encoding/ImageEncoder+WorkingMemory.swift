import Imagery

extension ImageEncoder {
    /// The bytes an encoder of `format` holds per pixel of the image beside the image itself
    /// while it encodes, as the large-output benchmark measured them: libjxl works in float
    /// planes, libheif and libavif convert to YUV and keep the encoder's reference frames, a
    /// JPEG keeps every DCT coefficient for its optimized Huffman tables, WebP converts to YUV;
    /// the others write rows as they go. A server charges an encode this before it starts.
    ///
    /// ```swift
    /// let room = image.width * image.height * ImageEncoder.workingBytesPerPixel(for: .jxl)
    /// ```
    package static func workingBytesPerPixel(for format: ImageFormat) -> Int {
        switch format {
        case .jxl: 40
        case .heic: 18
        case .avif: 16
        case .jpeg: 3
        case .webp, .gif: 2
        default: 1
        }
    }
}
