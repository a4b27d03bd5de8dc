import Imagery

extension ImageDecoder {
    /// Decodes straight to the size `resize` asks for, the ``Thumbnailer`` way: the codec
    /// reduces while decoding, and colour conversion and orientation run on the small result.
    public func decode(
        _ data: [UInt8], resize: Resize, allowsUpscaling: Bool, options: DecodingOptions
    ) throws(ImageError) -> Bitmap {
        try Thumbnailer(resize: resize, allowsUpscaling: allowsUpscaling, decodingOptions: options).thumbnail(from: data)
    }
}

extension ImagePipeline.Configuration {
    /// The standard configuration: ``ImageDecoder`` (libjpeg-turbo, libpng, GIF, and WebP with
    /// the trait), a ``DataLoader`` that retries transient failures (``RetryPolicy`` defaults),
    /// and an `ImageCache` with its defaults.
    ///
    /// ```swift
    /// let pipeline = ImagePipeline(configuration: .standard)
    /// ```
    public static var standard: Self {
        Self(decoder: ImageDecoder(), dataLoader: RetryingDataLoader(wrapping: DataLoader()))
    }
}
