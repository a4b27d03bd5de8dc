/// What decoding learned about an image's source.
///
/// ```swift
/// let bitmap = try ImageDecoder().decode(data, options: .init(draft: .fit(width: 256, height: 256)))
/// bitmap.metadata.originalSize  // 6028x3391, even though the bitmap is 754x424
/// ```
public struct ImageMetadata: Sendable, Hashable {
    /// The container format the pixels came from, or `nil` for pixels made in memory.
    public var format: ImageFormat?
    /// The stored (pre-orientation) size of the full-resolution source.
    public var originalSize: PixelSize
    /// The EXIF orientation the source declared (``ImageOrientation/up`` when it declared none).
    public var sourceOrientation: ImageOrientation
    /// Bitmap pixels per original pixel for a *draft* decode, which a decoder reduced while
    /// decoding (JPEG DCT scaling, box reduction); 1 for a full decode and for any processed
    /// image. Resampling uses it to keep a draft aligned with the original pixel grid.
    public var decodeScale: Double
    /// The name of the embedded colour profile, if any, and whether it was converted to sRGB.
    public var colorProfile: ColorProfileInfo?
    /// Damage a ``DecodingPolicy/lenient`` decode tolerated. Empty for a complete image.
    public var warnings: [String]
    /// How many bytes the source's encoded image was, where the pipeline decoded it (a decoder
    /// called on its own does not know what its caller read); `nil` for pixels made in memory.
    ///
    /// ```swift
    /// let response = try await pipeline.response(for: request)
    /// print(response.metadata.sourceByteCount ?? 0)  // 482113: what was downloaded and decoded
    /// ```
    public var sourceByteCount: Int?
    /// The source's own EXIF, XMP, IPTC and ICC blocks, where decoding was asked to keep them
    /// (``DecodingOptions/keptMetadata``, ``ImageRequest/keptMetadata``); `nil` otherwise.
    public var embedded: EmbeddedMetadata?

    /// Metadata for an image of `originalWidth` × `originalHeight` stored pixels.
    public init(
        format: ImageFormat?,
        originalWidth: Int,
        originalHeight: Int,
        sourceOrientation: ImageOrientation = .up,
        decodeScale: Double = 1,
        colorProfile: ColorProfileInfo? = nil,
        warnings: [String] = []
    ) {
        self.format = format
        self.originalSize = PixelSize(width: originalWidth, height: originalHeight)
        self.sourceOrientation = sourceOrientation
        self.decodeScale = decodeScale
        self.colorProfile = colorProfile
        self.warnings = warnings
        self.sourceByteCount = nil
        self.embedded = nil
    }

    /// `true` when a lenient decode filled in missing or damaged data.
    public var isIncomplete: Bool { !warnings.isEmpty }
}

/// What an embedded ICC profile was and what decoding did with it.
public struct ColorProfileInfo: Sendable, Hashable {
    /// The profile's description tag, for example "Display P3" or "Adobe RGB (1998)".
    public var name: String
    /// `true` when the pixels were converted from this profile to sRGB.
    public var convertedToSRGB: Bool

    /// Describes a profile named `name`.
    public init(name: String, convertedToSRGB: Bool) {
        self.name = name
        self.convertedToSRGB = convertedToSRGB
    }
}
