import Foundation
import Logging

extension ImagePipeline {
    /// Everything a pipeline is built from: its stages, its limits and where it reports.
    ///
    /// Start from `.standard` (in `ImageryCodecs`, which supplies the decoder) and change
    /// what you need:
    ///
    /// ```swift
    /// var configuration = ImagePipeline.Configuration.standard
    /// configuration.maximumConcurrentDownloads = 4
    /// configuration.imageCache = ImageCache(costLimit: 100 << 20)
    /// let pipeline = ImagePipeline(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        // MARK: Stages

        /// Fetches the bytes of every source. Default: a new ``DataLoader``.
        public var dataLoader: any DataLoading
        /// Turns bytes into bitmaps at the requested size. No default here: `ImageryCodecs`
        /// supplies one (libjpeg-turbo, libpng) through `Configuration.standard`.
        public var decoder: any ImageDecoding
        /// The memory cache, or `nil` for none. Default: a new ``ImageCache`` with its defaults.
        public var imageCache: ImageCache?
        /// The disk tier, between the memory cache and the source, or `nil` for none.
        /// Default: `nil`. `ImageryDiskCache` provides `DiskCache`.
        public var dataCache: (any DataCaching)?
        /// What the disk tier keeps. Default: ``DataCachePolicy/automatic``.
        public var dataCachePolicy: DataCachePolicy = .automatic
        /// Encodes processed images for the disk tier; without one, only original data is
        /// stored. Default: `nil` here; `Configuration.standard` sets JPEG q90 for opaque
        /// images and PNG for the rest.
        public var processedImageEncoder: (any ImageEncoding)?

        /// Rewrites every request before it is keyed and loaded, for example through an image
        /// server so that each download is the size asked for (`ImgproxyURLBuilder`, in
        /// `ImageryImgproxy`). `data(for:)` is not routed: it asks for the original. Default: `nil`.
        ///
        /// ```swift
        /// configuration.requestRouter = ImgproxyURLBuilder(baseURL: URL(string: "https://img.example.com")!)
        /// ```
        public var requestRouter: (any ImageRequestRouting)?

        // MARK: Limits

        /// Downloads that run at once; the rest wait in priority order. Sources already downloaded
        /// and waiting for a decode count against it too, so a source fetched faster than it can
        /// be decoded never piles up in memory. Default: 6.
        public var maximumConcurrentDownloads = 6
        /// Decodes that run at once; the rest wait in priority order. Default: the number of
        /// active processors.
        public var maximumConcurrentDecodes = ProcessInfo.processInfo.activeProcessorCount
        /// The most pixels that the pipeline's bitmaps may hold at once, across all requests:
        /// decodes, processing runs, and decoded images waiting for theirs; `nil` (the default)
        /// leaves only ``maximumConcurrentDecodes`` and each request's pixel limit.
        ///
        /// A decode is charged, before it starts, what its header says it will hold: the whole
        /// image, or with a `resize` the reduced size the codec decodes to (a 24 MP JPEG shown at
        /// 512 px costs about 1.5 MP, a 24 MP GIF all 24), plus its output (an enlargement's
        /// whole output) and the resample's rows. A decoded image stays charged while it waits
        /// for its processing run, and the run is charged what its processors add (a blur works
        /// in place and adds its line buffers; a padding adds the larger image). Work waits, in
        /// priority order, for room, and images already decoded are processed before new ones
        /// are decoded; one larger than the whole budget runs alone. At 4 bytes a pixel, a budget
        /// of 64 MP keeps the pipeline's pixels near 256 MB however many requests arrive at once:
        ///
        /// ```swift
        /// configuration.decodingPixelBudget = 64_000_000
        /// ```
        ///
        /// Processors of your own are charged one new image of their input's size.
        public var decodingPixelBudget: Int?
        /// The most pixels one decode or processing run may be charged, even alone: larger work
        /// fails at once with ``ImagePipelineError/processingFailed(source:_:)``. `nil`: the
        /// machine's physical memory at 4 bytes a pixel. A server with a memory budget sets it
        /// to what the budget leaves for images, so that work which could never fit is refused
        /// rather than run past the budget.
        package var decodingPixelCeiling: Int?
        /// Whether work larger than the room left waits, before it runs alone, for the images
        /// callers hold (``ImagePipeline/heldResponse(for:)``) to be let go. A server sets it:
        /// each of its holds ends with an encode, so the wait ends, and the memory of a large
        /// run never adds to an earlier result's. Off by default, since a caller may hold one
        /// image while it asks for another.
        package var largeWorkWaitsForHolds = false
        /// How much larger than a request's `resize` the codec decodes before the final
        /// resize: ``DecodingOptions/draftHeadroom``. Default: 2 (quality); 1 is faster.
        ///
        /// ```swift
        /// configuration.draftHeadroom = 1
        /// ```
        public var draftHeadroom = 2
        /// Whether codecs reduce while decoding to a request's `resize` (JPEG's DCT scaling, a
        /// box over streamed PNG rows, HEIC's thumbnails): ``DecodingOptions/reducesWhileDecoding``.
        /// `false` decodes every image at full size before the resize (imgproxy's
        /// `IMGPROXY_DISABLE_SHRINK_ON_LOAD`): the most fidelity, at a full decode's time and
        /// memory, which the ``decodingPixelBudget`` charges. Default: `true`.
        ///
        /// ```swift
        /// configuration.reducesWhileDecoding = false
        /// ```
        public var reducesWhileDecoding = true
        /// Whether each request's resize filters colour in linear light:
        /// ``DecodingOptions/resizesInLinearLight`` (imgproxy's `IMGPROXY_USE_LINEAR_COLORSPACE`).
        /// Processors that resize again (after a crop) stay in sRGB. Default: `false`.
        ///
        /// ```swift
        /// configuration.resizesInLinearLight = true
        /// ```
        public var resizesInLinearLight = false

        // MARK: Progressive previews

        /// Whether requests get previews while their image downloads: a progressive JPEG
        /// shows each scan as it completes, reduced to the request's size and processed as the
        /// image is, in ``ImageTask/Event/preview(_:)`` (and in `ImageModel`'s phase). Only the
        /// final image is cached. A request can say otherwise
        /// (``ImageRequest/progressivePreviews``). Default: `false`, as in Nuke.
        ///
        /// ```swift
        /// configuration.isProgressiveDecodingEnabled = true
        /// ```
        public var isProgressiveDecodingEnabled = false
        /// The least time between two previews of one image: each costs a decode, and a scan
        /// that completes sooner waits for the next bytes. Default: 0.2 s.
        public var progressiveDecodingInterval: Duration = .milliseconds(200)

        // MARK: Observability

        /// Where the pipeline logs: downloads and per-request failures at `debug` (a failure
        /// reaches its caller as a typed error, so a library stays quiet by default, as Nuke
        /// does). Sources are logged without their query string. Default: label
        /// `"imagery.pipeline"`.
        public var logger = Logger(label: "imagery.pipeline")
        /// The prefix of the swift-metrics counter labels (`imagery_requests_total`,
        /// `imagery_failures_total{kind=…}` …). Default: `"imagery"`.
        public var metricsPrefix = "imagery"

        /// A configuration with `decoder` and every other default.
        public init(decoder: any ImageDecoding, dataLoader: any DataLoading = DataLoader()) {
            self.decoder = decoder
            self.dataLoader = dataLoader
            self.imageCache = ImageCache()
        }

        /// A copy changed by `modify`, for one-expression configuration.
        ///
        /// ```swift
        /// let pipeline = ImagePipeline(configuration: .standard.with { $0.imageCache = nil })
        /// ```
        public func with(_ modify: (inout Configuration) -> Void) -> Configuration {
            var copy = self
            modify(&copy)
            return copy
        }
    }
}
