import Imagery
#if canImport(ImageIO)
#else
import ImageryCodecs
#endif

extension ImagePipeline {
    /// The pipeline views use when none is set with `.imagePipeline(_:)`: created on first
    /// use, with a memory cache and retries of transient failures. On Apple platforms it
    /// decodes with ImageIO (``ImageIODecoder``); elsewhere with `ImageryCodecs`.
    ///
    /// ```swift
    /// AsyncPhoto(url: url)                              // uses .shared
    /// GalleryView().imagePipeline(myPipeline)           // or inject your own
    /// ```
    public static let shared = ImagePipeline(configuration: .platformDefault)
}

extension ImagePipeline.Configuration {
    /// What `shared` uses: ``ImageIODecoder`` and a retrying `DataLoader` on
    /// Apple platforms, `ImageryCodecs`' `.standard` elsewhere. A starting point for your own:
    ///
    /// ```swift
    /// let pipeline = ImagePipeline(configuration: .platformDefault.with { $0.maximumConcurrentDownloads = 8 })
    /// ```
    public static var platformDefault: Self {
        #if canImport(ImageIO)
        Self(decoder: ImageIODecoder(), dataLoader: RetryingDataLoader(wrapping: DataLoader()))
        #else
        .standard
        #endif
    }
}
