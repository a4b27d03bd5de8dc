import Imagery
import ImageryCodecs
import Logging

extension ServerConfiguration {
    /// The bytes `memory` leaves for images once ``reservedMemory`` is set aside.
    ///
    /// - Throws: ``ServerSetupError`` naming `max-memory` when that is less than
    ///   ``MemoryBudget/minimumRoom``.
    func imageRoom(in memory: MemoryBudget) throws(ServerSetupError) -> Int {
        let room = memory.room(reserved: reservedMemory)
        guard room >= MemoryBudget.minimumRoom else {
            let (sum, overflow) = reservedMemory.addingReportingOverflow(MemoryBudget.minimumRoom + (1 << 20) - 1)
            let least = overflow ? Int.max >> 20 : sum >> 20
            throw .setting(
                "max-memory",
                "\(memory) leaves less than \(MemoryBudget.minimumRoom >> 20)MiB for images beside the \(reservedMemory >> 20)MiB set aside (the server at start, --response-cache-bytes and --image-cache-bytes): at least \(least)MiB"
            )
        }
        return room
    }

    /// The pipeline behind the server: its decodes and downloads bounded, its pixels held to
    /// `room` (``imageRoom(in:)``), its memory cache sized for a server whose answers are already
    /// in the response cache.
    func pipeline(loader: any DataLoading, room: Int, logger: Logger) -> ImagePipeline.Configuration {
        var pipeline = ImagePipeline.Configuration.standard
        var retries = RetryPolicy()
        retries.deadline = upstreamTimeout   // the whole load, retries included
        pipeline.dataLoader = RetryingDataLoader(wrapping: loader, policy: retries)
        pipeline.maximumConcurrentDecodes = concurrentProcessing
        pipeline.maximumConcurrentDownloads = concurrentDownloads
        pipeline.decodingPixelBudget = decodingPixelBudget > 0 ? decodingPixelBudget : MemoryBudget.pixelLimit(room: room)
        pipeline.decodingPixelCeiling = MemoryBudget.pixelCeiling(room: room)
        // Each hold ends with its encode: large work may wait for them.
        pipeline.largeWorkWaitsForHolds = true
        pipeline.draftHeadroom = draftHeadroom
        pipeline.reducesWhileDecoding = !disableShrinkOnLoad
        pipeline.resizesInLinearLight = useLinearColorspace
        pipeline.imageCache = ImageCache(costLimit: imageCacheBytes)
        if svg.unlimited { pipeline.decoder = ImageDecoder(svgLimits: svg.limits) }
        pipeline.logger = logger
        return pipeline
    }
}
