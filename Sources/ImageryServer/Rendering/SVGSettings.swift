import Imagery
import ImageryCodecs

/// What the server does with SVG sources, as imgproxy does: an SVG is answered as SVG when the
/// URL asks for `svg` or names no format (`--always-rasterize-svg` keeps the latter for raster
/// formats), sanitized unless `--sanitize-svg=false`, and held to ``SVGLimits``, whose byte
/// limit `--svg-unlimited` lifts (imgproxy's `IMGPROXY_ALWAYS_RASTERIZE_SVG`, `_SANITIZE_SVG`
/// and `_SVG_UNLIMITED`). Each changes response bytes, so each is part of the settings digest.
///
/// Passing an SVG through needs no SVG decoder: the sanitizer is in every build, so a server
/// built without the `SVG` trait still serves SVG sources as SVG, and refuses only to rasterize
/// them.
struct SVGSettings: Sendable, Equatable {
    /// Whether an SVG answer is rewritten by ``SVGSanitizer`` first. Default: `true`.
    var sanitizes = true
    /// Whether a URL that names no format gets a raster image of an SVG source. Default: `false`.
    var alwaysRasterizes = false
    /// Whether SVG documents may be any number of bytes. Default: `false` (10 MiB).
    var unlimited = false

    /// The limits every SVG document is held to, when rendered and when sanitized.
    var limits: SVGLimits {
        var limits = SVGLimits()
        if unlimited { limits.maximumBytes = nil }
        return limits
    }

    /// Whether an SVG source is answered as SVG when the URL asks for `requested` (`nil` for
    /// none; `best` asks for the best raster format, so it rasterizes).
    func passesThrough(requested: ImageFormat?, best: Bool) -> Bool {
        requested == .svg || (requested == nil && !best && !alwaysRasterizes)
    }

    /// The document to send: sanitized unless sanitizing is off, within ``limits`` either way.
    func answer(_ bytes: [UInt8]) throws(ImageError) -> [UInt8] {
        if sanitizes { return try SVGSanitizer.sanitize(bytes, limits: limits) }
        try limits.checkSize(bytes.count)
        return bytes
    }
}
