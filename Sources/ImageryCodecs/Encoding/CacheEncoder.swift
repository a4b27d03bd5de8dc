import Imagery

/// Encodes processed images for the disk cache: JPEG q90 when the image is opaque (a 256 px
/// thumbnail is about 20 KB and decodes in well under a millisecond), PNG when any pixel is
/// transparent, so that alpha survives.
///
/// ```swift
/// configuration.processedImageEncoder = CacheEncoder()
/// ```
public struct CacheEncoder: ImageEncoding {
    /// The format of opaque images; images with alpha are written as PNG.
    public var format: ImageFormat { .jpeg }

    /// The standard cache encoder.
    public init() {}

    public func encode(_ bitmap: Bitmap) throws(ImageError) -> [UInt8] {
        let format: ImageFormat = bitmap.hasTransparency ? .png : .jpeg
        return try ImageEncoder(format: format, quality: 90).encode(bitmap)
    }
}
