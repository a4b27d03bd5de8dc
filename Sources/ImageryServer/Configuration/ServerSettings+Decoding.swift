import Foundation
import Imagery
import ImageryCodecs
import ImageryImgproxy

extension ServerSettings {
    /// How sources are decoded and which are served as they are.
    static let decoding: [ServerSetting] = [
        .flag(
            "strip-metadata", "Strip the source's EXIF, XMP and IPTC from JPEG, PNG, WebP and AVIF answers (a URL's sm:0 or sm:1 says otherwise).",
            \.stripMetadata, imgproxy: .same("STRIP_METADATA")
        ).changing(.bytes),
        .flag(
            "keep-copyright", "While stripping, keep the EXIF copyright and artist (a URL's kcr says otherwise).", \.keepCopyright,
            imgproxy: .same("KEEP_COPYRIGHT")
        ).changing(.bytes),
        .flag(
            "strip-color-profile", "Convert colours to sRGB and drop the ICC profile; false keeps both as the source has them (a URL's scp says otherwise).",
            \.stripColorProfile, imgproxy: .same("STRIP_COLOR_PROFILE")
        ).changing(.bytes),
        .flag("auto-rotate", "Turn images upright by their EXIF orientation (a URL's ar:0 or ar:1 says otherwise).", \.autoRotate, imgproxy: .same("AUTO_ROTATE")).changing(.bytes),
        .flag("enforce-thumbnail", "Decode a HEIC's embedded thumbnail whenever it has one, whatever its size (a URL's eth says otherwise).", \.enforceThumbnail, imgproxy: .same("ENFORCE_THUMBNAIL")).changing(.bytes),
        .flag(
            "use-linear-colorspace", "Resize in linear light: fine patterns keep their brightness, at some cost in time (a resize after a crop stays in sRGB).",
            \.useLinearColorspace, imgproxy: .same("USE_LINEAR_COLORSPACE")
        ).changing(.bytes),
        .flag("disable-shrink-on-load", "Decode every image at full size before resizing, instead of reducing while decoding (JPEG's DCT scaling, PNG's box, HEIC's thumbnails): slower and heavier, for the last bit of fidelity.", \.disableShrinkOnLoad, imgproxy: .same("DISABLE_SHRINK_ON_LOAD")).changing(.bytes),
        ServerSetting("skip-processing-formats", .list, "Source formats served as they are, unprocessed, when a URL asks for no other format (jpeg,png,gif,webp,heic,avif,jxl).", imgproxy: .converted("SKIP_PROCESSING_FORMATS"), show: { configuration in
            configuration.skipProcessingFormats.isEmpty ? "none" : configuration.skipProcessingFormats.map(\.imgproxyExtension).joined(separator: ",")
        }) { configuration, value throws(SettingError.Reason) in
            guard case let .list(names) = value else { throw .invalid("expected a comma-separated list") }
            var formats: [ImageFormat] = []
            for name in names.map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
                // SVG is served as it is (sanitized) in every build, decoder or not.
                guard let format = ImageFormat(imgproxyExtension: name), ImageDecoder.supportedFormats.contains(format) || format == .svg else {
                    throw .invalid("\(name.prefix(20)) is not a format this build reads")
                }
                if !formats.contains(format) { formats.append(format) }
            }
            configuration.skipProcessingFormats = formats
        }.changing(.bytes),
        .flag("svg-unlimited", "Read SVG documents of any size (by default, 10 MiB at most); their elements, <use> depth and filters stay bounded.", \.svg.unlimited, imgproxy: .same("SVG_UNLIMITED")).changing(.bytes),
    ]

    /// Every format name imgproxy reads (its `imagetype` names, and `jpg`), for
    /// `IMGPROXY_SKIP_PROCESSING_FORMATS`: one this build does not read is left out with a
    /// warning rather than refused, since skipping a format that is never read changes nothing.
    static let imgproxyFormatNames: Set<String> = ["jpeg", "jpg", "jxl", "png", "webp", "gif", "ico", "svg", "heic", "avif", "bmp", "tiff"]
}
