import Imagery

extension ImageDecoder {
    /// Decodes straight to the size `resize` asks for, the ``Thumbnailer`` way: the codec
    /// reduces while decoding, and colour conversion and orientation run on the small result.
    public func decode(
        _ data: [UInt8], resize: Resize, allowsUpscaling: Bool, options: DecodingOptions
    ) throws(ImageError) -> Bitmap {
        try Thumbnailer(resize: resize, allowsUpscaling: allowsUpscaling, decodingOptions: options).thumbnail(from: data, decoder: self)
    }
}

extension ImagePipeline.Configuration {
    /// The standard configuration: ``ImageDecoder`` (libjpeg-turbo, libpng, GIF, and WebP with
    /// the trait), a `DataLoader` that retries transient failures (`RetryPolicy` defaults),
    /// an `ImageCache` with its defaults, and ``CacheEncoder`` for processed images should a
    /// disk cache be added.
    ///
    /// ```swift
    /// let pipeline = ImagePipeline(configuration: .standard)
    /// ```
    public static var standard: Self {
        var configuration = Self(decoder: ImageDecoder(), dataLoader: RetryingDataLoader(wrapping: DataLoader()))
        configuration.processedImageEncoder = CacheEncoder()
        return configuration
    }
}

/// What the core's `ImagePipeline.Configuration.platformDefault` uses on Linux, found
/// by name when this module is linked, so that `ImagePipeline.shared` decodes with no setup.
package enum StandardCodecs: StandardCodecsProviding {
    package static var standardConfiguration: ImagePipeline.Configuration { .standard }
}
