extension ImageRequest {
    /// What a decode makes of the source's bytes: its size, what it does with damage, the
    /// orientation, an embedded thumbnail, the metadata it keeps and whether it keeps every
    /// frame. The memory-cache key, the processed image's disk key and the decode stage's
    /// coalescing key each hold this value whole, so an option added here is part of all three.
    ///
    /// ```swift
    /// var request = ImageRequest(url: url, resize: .fit(width: 320, height: 320))
    /// request.decodeOptions.keptMetadata = [.exif]   // the same as request.keptMetadata = [.exif]
    /// let key = pipeline.cacheKey(for: request)
    /// print(key.decodeOptions == request.decodeOptions)   // true
    /// ```
    ///
    /// Two things that reach the decoder are not here. The pixel limit
    /// (``ImageRequest/maximumPixelCount``) decides whether a source is decoded at all, never
    /// what its image looks like, so a cached image answers every request whose limit it fits.
    /// The pipeline's own settings (``ImagePipeline/Configuration/draftHeadroom`` and the like)
    /// are the same for all its requests. The codecs' ``DecodingOptions`` is made from the three;
    /// a request holding one would set what the pipeline decides.
    public struct DecodeOptions: Sendable, Hashable {
        /// The size to present the image at, or `nil` for the full size: ``ImageRequest/resize``.
        public var resize: Resize?
        /// Whether a source smaller than ``resize`` is enlarged: ``ImageRequest/allowsUpscaling``.
        /// Default: `false`.
        public var allowsUpscaling = false
        /// Whether damaged data yields an error or a flagged partial image:
        /// ``ImageRequest/decodingPolicy``. Default: `.strict`.
        public var policy: DecodingPolicy = .strict
        /// Whether the EXIF orientation tag is ignored: ``ImageRequest/ignoresEXIFOrientation``.
        /// Default: `false`.
        public var ignoresEXIFOrientation = false
        /// Whether an embedded thumbnail is decoded whenever there is one:
        /// ``ImageRequest/prefersEmbeddedThumbnail``. Default: `false`.
        public var prefersEmbeddedThumbnail = false
        /// The source's metadata blocks kept: ``ImageRequest/keptMetadata``. Default: none.
        public var keptMetadata: KeptMetadata = []
        /// The limits of an animated decode, or `nil` for the first frame as a still:
        /// ``ImageRequest/animation``. Default: `nil`.
        public var animation: AnimationLimits?

        /// The defaults: full size, strict, upright, no metadata kept, the first frame only.
        public init() {}
    }
}

extension ImageRequest.DecodeOptions {
    /// What the codec is told of these options. ``resize`` and ``allowsUpscaling`` are not in
    /// it: the pipeline passes them to the decode call itself.
    var codecOptions: DecodingOptions {
        var options = DecodingOptions()
        options.policy = policy
        options.ignoresEXIFOrientation = ignoresEXIFOrientation
        options.prefersEmbeddedThumbnail = prefersEmbeddedThumbnail
        options.keptMetadata = keptMetadata
        // The codec always has limits; only the request can say "no animation".
        if let animation { options.animation = animation }
        return options
    }

    /// The disk-cache key of the image decoded from `sourceKey` with these options and then
    /// processed by `processors` (their identifiers, joined).
    ///
    /// Keys on disk outlive the version that wrote them: each option keeps its spelling and its
    /// place, and one at its default adds nothing, so an option added later leaves every key
    /// already stored as it was. `CacheIdentifierTests` pins the spelling.
    func processedDataKey(sourceKey: String, processors: String) -> String {
        var key = sourceKey + "#" + (resize?.identifier ?? "original")
        if allowsUpscaling { key += "+upscaling" }
        if policy == .lenient { key += "+lenient" }
        if ignoresEXIFOrientation { key += "+exif-orientation-ignored" }
        if prefersEmbeddedThumbnail { key += "+embedded-thumbnail" }
        if !keptMetadata.isEmpty { key += "+metadata:\(keptMetadata.rawValue)" }
        if !processors.isEmpty { key += "#" + processors }
        if let animation {
            key += "#animation:\(animation.maximumFrameCount):\(animation.maximumFramePixelCount ?? 0)"
            if animation.delivery == .stream { key += ":stream" }
        }
        return key
    }

    /// ``ImageCacheKey/description``: the options that differ from the defaults, for logs.
    func description(sourceKey: String, processors: String) -> String {
        var text = sourceKey
        if let resize { text += " [\(resize)\(allowsUpscaling ? ", upscaling" : "")]" }
        if policy == .lenient { text += " [lenient]" }
        if ignoresEXIFOrientation { text += " [EXIF orientation ignored]" }
        if prefersEmbeddedThumbnail { text += " [embedded thumbnail]" }
        if !keptMetadata.isEmpty { text += " [metadata kept]" }
        if !processors.isEmpty { text += " [\(processors)]" }
        if animation != nil { text += " [animated]" }
        return text
    }
}
