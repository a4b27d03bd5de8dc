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

/// One decode (and resize) of fetched bytes.
struct DecodeKey: Hashable {
    var fetch: FetchKey
    var resize: Resize?
    var allowsUpscaling: Bool
    var policy: DecodingPolicy
    var maximumPixelCount: Int
    var draftHeadroom = 2
    var animation: AnimationLimits?
    var ignoresEXIFOrientation = false
    var prefersEmbeddedThumbnail = false
    var keptMetadata: KeptMetadata = []
    /// The pipeline's ``ImagePipeline/Configuration/reducesWhileDecoding``.
    var reducesWhileDecoding = true
    /// The pipeline's ``ImagePipeline/Configuration/resizesInLinearLight``.
    var resizesInLinearLight = false

    /// The options a decode of this key runs under: the final one and the previews' alike.
    var decodingOptions: DecodingOptions {
        var options = DecodingOptions()
        options.policy = policy
        options.maximumPixelCount = maximumPixelCount
        options.draftHeadroom = draftHeadroom
        if let animation { options.animation = animation }
        options.ignoresEXIFOrientation = ignoresEXIFOrientation
        options.prefersEmbeddedThumbnail = prefersEmbeddedThumbnail
        options.keptMetadata = keptMetadata
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
