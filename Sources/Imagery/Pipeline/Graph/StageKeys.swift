/// The keys under which the three stages coalesce work. Each holds every option that
/// changes that stage's result or the work it does, so two callers share a job only when
/// they would get exactly the same from it.

/// One download (or one read of the stored original).
struct FetchKey: Hashable {
    /// The source identity, with any loader partition and credential digest.
    var source: String
    /// Whether the stored original may be used: a caller that reloads never shares a fetch
    /// with one that reads the disk.
    var readsDisk: Bool
}

/// One decode (and resize) of fetched bytes: requests that differ only in what happens after
/// it (processors, priority, cache options) share it.
struct DecodeKey: Hashable {
    var fetch: FetchKey
    /// The request's ``ImageRequest/DecodeOptions``, whole.
    var decodeOptions: ImageRequest.DecodeOptions
    /// Out of the decode options (a cached image answers any limit it fits) but in this key:
    /// a decode under a lower limit refuses what one under a higher limit returns.
    var maximumPixelCount: Int
    /// The pipeline's ``ImagePipeline/Configuration/draftHeadroom``.
    var draftHeadroom = 2
    /// The pipeline's ``ImagePipeline/Configuration/reducesWhileDecoding``.
    var reducesWhileDecoding = true
    /// The pipeline's ``ImagePipeline/Configuration/resizesInLinearLight``.
    var resizesInLinearLight = false

    /// The options a decode of this key runs under: the final one and the previews' alike.
    var codecOptions: DecodingOptions {
        var options = decodeOptions.codecOptions
        options.maximumPixelCount = maximumPixelCount
        options.draftHeadroom = draftHeadroom
        options.reducesWhileDecoding = reducesWhileDecoding
        options.resizesInLinearLight = resizesInLinearLight
        return options
    }
}

/// One processing run: the decode it starts from, the processors, and whether a stored
/// processed image may be used.
struct ProcessKey: Hashable {
    var image: ImageCacheKey
    var decode: DecodeKey
    var readsDisk: Bool
}
