import Imagery
import ImageryCodecs
import ImageryImgproxy

/// What of a source's own metadata an answer carries (imgproxy's `strip_metadata`,
/// `keep_copyright` and `strip_color_profile`): the pipeline reads the blocks the plan keeps
/// (``ImgproxyMetadata/kept``), and the encoder writes what is left of them here.
extension ImageRenderer {
    /// The blocks an answer made from `image` carries: with stripping, a fresh EXIF of the
    /// source's copyright and artist alone; without, the source's EXIF (upright when the image
    /// was turned, its thumbnail of the whole original cut), XMP and IPTC; and the ICC profile
    /// where it is kept.
    static func embedded(for image: Bitmap, as metadata: ImgproxyMetadata, upright: Bool) -> EmbeddedMetadata? {
        guard let source = image.metadata.embedded else { return nil }
        var kept = EmbeddedMetadata()
        if let exif = source.exif.flatMap(ExifBlock.init) {
            kept.exif = metadata.strips ? (metadata.keepsCopyright ? exif.copyrightOnly : nil) : exif.kept(upright: upright)
        }
        if !metadata.strips {
            kept.xmp = source.xmp
            kept.iptc = source.iptc
        }
        if !metadata.stripsColorProfile { kept.iccProfile = source.iccProfile }
        return kept.isEmpty ? nil : kept
    }

    /// Whether `image` loses its kept colour profile as `formats`: one of them cannot carry it,
    /// so its colours are converted to sRGB (``convertedToSRGB(_:)``) rather than sent still
    /// the profile's own.
    static func losesProfile(_ image: Bitmap, to formats: [ImageFormat]) -> Bool {
        image.metadata.embedded?.iccProfile != nil && !formats.allSatisfy(EmbeddedMetadata.writableFormats.contains)
    }

    /// `image` with its profile's colours converted to sRGB, and the profile dropped.
    static func convertedToSRGB(_ image: Bitmap) -> Bitmap {
        guard let icc = image.metadata.embedded?.iccProfile else { return image }
        var converted = image
        ImageDecoder.convertColor(&converted, iccProfile: icc, enabled: true)
        converted.metadata.embedded?.iccProfile = nil
        return converted
    }
}
