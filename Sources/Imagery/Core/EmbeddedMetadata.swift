/// What a source carries beside its pixels, kept byte for byte where a request asks for it
/// (``ImageRequest/keptMetadata``): its EXIF, XMP and IPTC blocks and its ICC colour profile.
/// ``ImageEncoder`` writes them into JPEG, PNG, WebP and AVIF output (``ImageEncoder/embeddedMetadata``).
///
/// ```swift
/// var request = ImageRequest(url: photoURL, resize: .fit(width: 1024, height: 1024))
/// request.keptMetadata = [.exif, .xmp]
/// let image = try await pipeline.image(for: request)
/// image.metadata.embedded?.exif   // the source's EXIF, as a TIFF structure
/// ```
public struct EmbeddedMetadata: Sendable, Hashable {
    /// The EXIF block as a TIFF structure (from its byte-order mark on, without JPEG's
    /// `Exif\0\0` prefix).
    public var exif: [UInt8]?
    /// The XMP packet, UTF-8 XML.
    public var xmp: [UInt8]?
    /// IPTC as Photoshop image resources (a JPEG's APP13 after `Photoshop 3.0\0`).
    public var iptc: [UInt8]?
    /// The ICC profile.
    public var iccProfile: [UInt8]?

    /// Metadata of these blocks; `nil` for each the source does not carry.
    public init(exif: [UInt8]? = nil, xmp: [UInt8]? = nil, iptc: [UInt8]? = nil, iccProfile: [UInt8]? = nil) {
        self.exif = exif
        self.xmp = xmp
        self.iptc = iptc
        self.iccProfile = iccProfile
    }

    /// Whether there is no block at all.
    public var isEmpty: Bool { exif == nil && xmp == nil && iptc == nil && iccProfile == nil }

    /// Only the blocks `kept` names.
    public func keeping(_ kept: KeptMetadata) -> EmbeddedMetadata {
        EmbeddedMetadata(
            exif: kept.contains(.exif) ? exif : nil, xmp: kept.contains(.xmp) ? xmp : nil,
            iptc: kept.contains(.iptc) ? iptc : nil, iccProfile: kept.contains(.colorProfile) ? iccProfile : nil
        )
    }
}

/// Which of a source's own metadata blocks a request keeps (``ImageRequest/keptMetadata``).
/// Keeping ``colorProfile`` also keeps the pixels in the profile's colours, unconverted: the
/// profile describes them, as it did in the source.
///
/// ```swift
/// request.keptMetadata = .all
/// ```
public struct KeptMetadata: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let exif = KeptMetadata(rawValue: 1)
    public static let xmp = KeptMetadata(rawValue: 2)
    public static let iptc = KeptMetadata(rawValue: 4)
    public static let colorProfile = KeptMetadata(rawValue: 8)
    /// EXIF, XMP and IPTC: what describes the image, not its colours.
    public static let descriptive: KeptMetadata = [.exif, .xmp, .iptc]
    public static let all: KeptMetadata = [.exif, .xmp, .iptc, .colorProfile]
}
