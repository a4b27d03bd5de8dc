import Imagery
import ImageryCodecs
import Logging

extension ServerConfiguration {
    /// The pipeline behind the server: its decodes and downloads bounded, its memory cache
    /// sized for a server whose answers are already in the response cache.
    func pipeline(loader: any DataLoading, logger: Logger) -> ImagePipeline.Configuration {
        var pipeline = ImagePipeline.Configuration.standard
        var retries = RetryPolicy()
        retries.deadline = upstreamTimeout   // the whole load, retries included
        pipeline.dataLoader = RetryingDataLoader(wrapping: loader, policy: retries)
        pipeline.maximumConcurrentDecodes = concurrentProcessing
        pipeline.maximumConcurrentDownloads = concurrentDownloads
        pipeline.decodingPixelBudget = decodingPixelBudget
        pipeline.draftHeadroom = draftHeadroom
        pipeline.reducesWhileDecoding = !disableShrinkOnLoad
        pipeline.resizesInLinearLight = useLinearColorspace
        pipeline.imageCache = ImageCache(costLimit: imageCacheBytes)
        if svg.unlimited { pipeline.decoder = ImageDecoder(svgLimits: svg.limits) }
        pipeline.logger = logger
        return pipeline
    }
}
