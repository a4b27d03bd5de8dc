import Imagery

/// Encodes processed images for the disk cache: JPEG q90 when the image is opaque (a 256 px
/// thumbnail is about 20 KB and decodes in well under a millisecond), PNG when any pixel is
/// transparent, so that alpha survives.
///
/// ```swift
/// configuration.processedImageEncoder = CacheEncoder()
/// ```
public struct CacheEncoder: ImageEncoding {
    /// PNG when any pixel of `bitmap` is transparent, so alpha survives; JPEG otherwise.
    public func format(for bitmap: Bitmap) -> ImageFormat {
        bitmap.hasTransparency ? .png : .jpeg
    }

    /// The standard cache encoder.
    public init() {}

    public func encode(_ bitmap: Bitmap) throws(ImageError) -> [UInt8] {
        try ImageEncoder(format: format(for: bitmap), quality: 90).encode(bitmap)
    }
}
