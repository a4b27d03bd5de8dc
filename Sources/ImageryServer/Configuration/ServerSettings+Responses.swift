import Foundation
import Imagery
import ImageryCodecs
import ImageryImgproxy

extension ServerSettings {
    static let responses: [ServerSetting] = [
        .whole("quality", "JPEG, WebP, AVIF, HEIC and JPEG XL quality when a URL gives none.", \.defaultQuality, in: 1...100, imgproxy: .same("QUALITY")).changing(.bytes),
        .flag("auto-avif", "Answer AVIF when Accept names image/avif and the URL names no format (imgproxy: off by default).", \.negotiation.autoAVIF, imgproxy: .same("AUTO_AVIF")).changing(.bytes),
        .flag("auto-webp", "Answer WebP when Accept names image/webp (and AVIF was not chosen) and the URL names no format (imgproxy: off by default).", \.negotiation.autoWebP, imgproxy: .same("AUTO_WEBP")).changing(.bytes),
        .flag("enforce-avif", "Answer AVIF to clients that take it even when the URL names another format.", \.negotiation.enforceAVIF, imgproxy: .same("ENFORCE_AVIF")).changing(.bytes),
        .flag("auto-jxl", "Answer JPEG XL when Accept names image/jxl and the URL names no format, before AVIF and WebP (off by default, as in imgproxy).", \.negotiation.autoJXL, imgproxy: .same("AUTO_JXL")).changing(.bytes),
        .flag("enforce-jxl", "Answer JPEG XL to clients that take it even when the URL names another format.", \.negotiation.enforceJXL, imgproxy: .same("ENFORCE_JXL")).changing(.bytes),
        .flag("enable-client-hints", "Let DPR and Width (and Sec-CH-DPR, Sec-CH-Width) fill in a URL's dpr and width; answers carry Vary and Accept-CH.", \.enableClientHints, imgproxy: .same("ENABLE_CLIENT_HINTS")).changing(.bytes),
        ServerSetting("preferred-formats", .list, "Without a format in the URL or from Accept: the source's format when listed, else the first listed that keeps alpha and animation (default: JPEG, or PNG for alpha).", imgproxy: .same("PREFERRED_FORMATS", note: "default jpeg,png,gif"), show: { configuration in
            configuration.negotiation.preferredFormats.isEmpty ? "none" : configuration.negotiation.preferredFormats.map(\.imgproxyExtension).joined(separator: ",")
        }) { configuration, value throws(SettingError.Reason) in
            guard case let .list(names) = value else { throw .invalid("expected a comma-separated list") }
            var formats: [ImageFormat] = []
            for name in names.map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
                guard let format = ImageFormat(imgproxyExtension: name), configuration.negotiation.writable.contains(format) else {
                    throw .invalid("\(name.prefix(20)) is not a format this build writes")
                }
                formats.append(format)
            }
            configuration.negotiation.preferredFormats = formats
        }.changing(.bytes),
        .whole("avif-speed", "aom's speed for AVIF, 0 (smallest files) to 10 (fastest).", \.encoding.avifSpeed, in: 0...10, imgproxy: .same("AVIF_SPEED")).changing(.bytes),
        .flag("jpeg-progressive", "Write progressive JPEGs: shown coarse first, sharpened as they arrive.", \.encoding.jpegProgressive, imgproxy: .same("JPEG_PROGRESSIVE")).changing(.bytes),
        .flag("png-interlaced", "Write Adam7-interlaced PNGs: shown coarse first, at a larger size.", \.encoding.pngInterlaced, imgproxy: .same("PNG_INTERLACED")).changing(.bytes),
        .flag(
            "png-quantize", "Write indexed PNGs of at most --png-quantization-colors colours (median cut, no dithering); an image with partial alpha stays truecolour.",
            \.encoding.pngQuantize, imgproxy: .same("PNG_QUANTIZE")
        ).changing(.bytes),
        .whole(
            "png-quantization-colors", "The most colours of a quantized PNG, 2 to 256.", \.encoding.pngQuantizationColors, in: 2...256,
            imgproxy: .same("PNG_QUANTIZATION_COLORS")
        ).changing(.bytes),
        .whole("webp-effort", "libwebp's effort for lossy WebP, 1 (fastest) to 6 (smallest files).", \.encoding.webpEffort, in: 1...6, imgproxy: .same("WEBP_EFFORT")).changing(.bytes),
        .whole("jxl-effort", "libjxl's effort for JPEG XL, 1 (fastest) to 9 (smallest files).", \.encoding.jxlEffort, in: 1...9, imgproxy: .same("JXL_EFFORT")).changing(.bytes),
        ServerSetting("webp-preset", .text, "What lossy WebP is tuned for: default, photo, picture, drawing, icon or text.", imgproxy: .same("WEBP_PRESET"), show: { $0.encoding.webpPreset.rawValue }) {
            configuration, value throws(SettingError.Reason) in
            guard case let .text(name) = value, let preset = WebPPreset(rawValue: name.lowercased()) else {
                throw .invalid("expected one of \(WebPPreset.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            configuration.encoding.webpPreset = preset
        }.changing(.bytes),
        .flag("always-rasterize-svg", "Answer an SVG source in a raster format when the URL names none (by default it is answered as SVG, as when the URL asks for svg).", \.svg.alwaysRasterizes, imgproxy: .same("ALWAYS_RASTERIZE_SVG")).changing(.bytes),
        .flag("sanitize-svg", "Remove scripts, event handlers, embedded documents and outside references from SVG answers (on by default; off sends the source's document as it is).", \.svg.sanitizes, imgproxy: .same("SANITIZE_SVG")).changing(.bytes),
        .flag("enforce-webp", "Answer WebP to clients whose best is WebP even when the URL names another format.", \.negotiation.enforceWebP, imgproxy: .same("ENFORCE_WEBP")).changing(.bytes),
        .flag("return-attachment", "Content-Disposition: attachment by default, so that browsers download rather than show (a URL's att says otherwise).", \.returnAttachment, imgproxy: .same("RETURN_ATTACHMENT")).changing(.storedHeaders),
        .required("cache-control", "Cache-Control of images: a URL names its options and source, so its bytes never change.", \.cacheControl, imgproxy: .converted("TTL", unit: "seconds", note: "max-age=N, public; no immutable"), check: headerValue).changing(.storedHeaders),
        .text("error-cache-control", "Cache-Control of errors (default: none, as imgproxy 4; errors made with a client's cookies are always private, no-store).", \.errorCacheControl, check: headerValue).changing(.nothingStored),
    ]

    /// Why `value` cannot be a header value, or `nil`.
    static func headerValue(_ value: String) -> String? {
        value.allSatisfy({ (32...126).contains($0.asciiValue ?? 0) }) ? nil : "must be visible ASCII and spaces (it is an HTTP header value)"
    }
}
