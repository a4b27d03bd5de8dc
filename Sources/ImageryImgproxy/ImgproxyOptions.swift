import Imagery

/// imgproxy's processing options as one typed value: what a URL's option segments
/// (`rs:fill:300:200`, `g:sm`, `bl:2` …) say, and what ``ImgproxyURLBuilder`` writes.
///
/// Parsing refuses an unknown or malformed option with an ``ImgproxyError`` that names it;
/// every option has its full and short name, and arguments may be left empty to keep their
/// default (`rs:fill::300` keeps the width at 0, "from the other side").
///
/// ```swift
/// var options = ImgproxyOptions()
/// options.resizingType = .fill
/// options.width = 300
/// options.height = 200
/// options.gravity = .smart
/// let segments = options.segments              // ["rs:fill:300:200", "g:sm"]
/// let parsed = try ImgproxyOptions(segments: segments)
/// assert(parsed == options)
/// ```
public struct ImgproxyOptions: Sendable, Hashable {
    /// How the image meets the `width` × `height` box.
    public enum ResizingType: String, Sendable, Hashable, CaseIterable {
        /// Inside the box, keeping the aspect ratio. The default.
        case fit
        /// Covering the box, keeping the aspect ratio, cropped by the gravity.
        case fill
        /// As `fill`, but never enlarged: a smaller source keeps the box's aspect ratio.
        case fillDown = "fill-down"
        /// Exactly the box, the aspect ratio ignored.
        case force
        /// `fill` when the image and the box face the same way, `fit` otherwise.
        case auto
    }

    /// Padding on each side, in pixels before `dpr`.
    public struct Padding: Sendable, Hashable {
        /// Pixels above.
        public var top: Int
        /// Pixels to the right.
        public var right: Int
        /// Pixels below.
        public var bottom: Int
        /// Pixels to the left.
        public var left: Int

        /// Padding of the given sides.
        public init(top: Int, right: Int, bottom: Int, left: Int) {
            (self.top, self.right, self.bottom, self.left) = (top, right, bottom, left)
        }
    }

    /// A crop of the source before resizing.
    public struct Crop: Sendable, Hashable {
        /// Pixels, or a fraction of the source's width when at most 1; 0 keeps the whole width.
        public var width: Double
        /// Pixels, or a fraction of the source's height when at most 1; 0 keeps the whole height.
        public var height: Double
        /// Where the window sits; `nil` uses the options' ``ImgproxyOptions/gravity``.
        public var gravity: Gravity?

        /// A crop of `width` × `height` placed by `gravity`.
        public init(width: Double, height: Double, gravity: Gravity? = nil) {
            self.width = width
            self.height = height
            self.gravity = gravity
        }
    }

    /// `watermark`/`wm`: the server's watermark image over the result.
    public struct Watermark: Sendable, Hashable {
        /// Where it sits; `nil` tiles it over the whole image (imgproxy's `re`).
        public var position: Gravity?
        /// 0–1, multiplied by the server's base opacity.
        public var opacity: Double
        /// A fraction of the result's width the watermark is scaled to; 0 keeps its own size.
        public var scale: Double

        /// A watermark at `position` (`nil` tiles it), `opacity` and `scale`.
        public init(position: Gravity? = .center, opacity: Double = 1, scale: Double = 0) {
            self.position = position
            self.opacity = opacity
            self.scale = scale
        }
    }

    /// The security options, which only lower the server's own limits, and only when it allows
    /// them (`IMAGERY_ALLOW_SECURITY_OPTIONS`). 0 keeps the server's limit.
    public struct SecurityLimits: Sendable, Hashable {
        /// `max_src_resolution`: megapixels.
        public var sourceMegapixels = 0.0
        /// `max_src_file_size`: bytes.
        public var sourceBytes = 0
        /// `max_animation_frames`.
        public var animationFrames = 0
        /// `max_animation_frame_resolution`: megapixels per frame.
        public var animationFrameMegapixels = 0.0
        /// `max_result_dimension`: pixels a side.
        public var resultDimension = 0

        /// No lowered limit.
        public init() {}
    }

    /// Default: ``ResizingType/fit``.
    public var resizingType = ResizingType.fit
    /// The box's width before `dpr`; 0 means "from the other side" (or the source's when both are 0).
    public var width = 0
    /// The box's height before `dpr`; 0 as for ``width``.
    public var height = 0
    /// `min-width`/`mw`: the result is scaled up (within ``enlarge``) to at least this wide,
    /// before `dpr`. Default: 0, none.
    public var minWidth = 0
    /// `min-height`/`mh`: as ``minWidth``, for the height. Default: 0.
    public var minHeight = 0
    /// `zoom`/`z`: multiplies the scale, and the box, across. Default: 1.
    public var zoomWidth = 1.0
    /// `zoom`/`z`: multiplies the scale, and the box, down. Default: 1.
    public var zoomHeight = 1.0
    /// Whether a source smaller than the box is enlarged. Default: `false`.
    public var enlarge = false
    /// Whether the result is padded to the box. Default: `false`.
    public var extend = false
    /// Where the image sits when extended. Default: the centre.
    public var extendGravity = Gravity.center
    /// `extend_aspect_ratio`/`exar`: pads the result to the box's aspect ratio, not its size.
    /// Default: `false`.
    public var extendsAspectRatio = false
    /// Where the image sits when extended to the aspect ratio. Default: the centre.
    public var extendAspectRatioGravity = Gravity.center
    /// Where `fill` and `crop` keep their window. Default: the centre.
    public var gravity = Gravity.center
    /// Multiplies the box (not the crop). Default: 1.
    public var dpr = 1.0
    /// A crop of the source before resizing. Default: none.
    public var crop: Crop?
    /// `trim`/`t`: cuts a one-colour border before the crop, as the core's processor does.
    /// Default: none.
    public var trim: ImageProcessors.Trim?
    /// Clockwise degrees, a multiple of 90, normalised to 0–270. Default: 0.
    public var rotate = 0
    /// Mirrors left to right (`fl:1`), after the rotation. Default: `false`.
    public var flipsHorizontally = false
    /// Mirrors top to bottom (`fl::1`), after the rotation. Default: `false`.
    public var flipsVertically = false
    /// Pixels added around the result, before `dpr`, as CSS orders them (top, right, bottom,
    /// left), in the background colour or transparent. Default: none.
    public var padding: Padding?
    /// The side of `pixelate`'s blocks, in output pixels; 0 is off. Default: 0.
    public var pixelate = 0
    /// Gaussian blur sigma; 0 is off. Default: 0.
    public var blur = 0.0
    /// Unsharp-mask sigma; 0 is off. Default: 0.
    public var sharpen = 0.0
    /// Flattens alpha onto this colour (and extends with it). Default: none.
    public var background: RGBA?
    /// The server's watermark over the result. Default: none.
    public var watermark: Watermark?
    /// 1–100; 0 means the server's default. Default: 0.
    public var quality = 0
    /// `format_quality`/`fq`: a quality per output format, over ``quality``. Default: none.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// `max_bytes`/`mb`: the largest JPEG, WebP or AVIF body wanted; the quality is lowered
    /// until it fits, in at most five encodes. 0 is off. Default: 0.
    public var maximumBytes = 0
    /// The output format; `nil` leaves it to the extension, then to `Accept`. Default: `nil`.
    public var format: ImageFormat?
    /// Changes the URL, and so every cache key, without changing the image. Letters, digits,
    /// `-`, `_`, `.` and `~`: a `:` or `/` would not read back from the URL. Default: `nil`.
    public var cacheBuster: String?
    /// `expires`/`exp`: a Unix time after which the URL answers 404. Default: `nil`, never.
    public var expires: Int?
    /// `filename`/`fn`: the name `Content-Disposition` gives, without its extension. Default:
    /// `nil`, the source's own name.
    public var filename: String?
    /// `return_attachment`/`att`: `Content-Disposition: attachment`, so that a browser
    /// downloads instead of showing. Default: `false`, `inline`.
    public var returnsAttachment = false
    /// `skip_processing`/`skp`: source formats served as they are, their bytes untouched.
    /// Default: none.
    public var skipProcessing: Set<ImageFormat> = []
    /// `auto_rotate`/`ar`: whether the source's EXIF orientation is applied; `ar:0` takes the
    /// pixels as stored. Default: `true` (a server's `IMAGERY_AUTO_ROTATE` may say otherwise).
    public var autoRotate = true
    /// `strip_metadata`/`sm`, `keep_copyright`/`kcr` and `strip_color_profile`/`scp`: what of
    /// the source's metadata the answer keeps. Default: imgproxy's, the copyright alone (a
    /// server's `IMAGERY_STRIP_METADATA`, `_KEEP_COPYRIGHT` and `_STRIP_COLOR_PROFILE` may say
    /// otherwise).
    public var metadata = ImgproxyMetadata()
    /// `enforce_thumbnail`/`eth`: decode the embedded thumbnail whenever the source has one
    /// (HEIC), whatever its size. Default: `false` (a server's `IMAGERY_ENFORCE_THUMBNAIL` may
    /// say otherwise).
    public var enforcesThumbnail = false
    /// `raw`: the source's bytes, unprocessed, whatever their format (the server's source
    /// guard and size limit still apply). Default: `false`.
    public var raw = false
    /// The security options' limits (see ``SecurityLimits``). Default: none lowered.
    public var security = SecurityLimits()
    /// `autoquality`/`aq`: the quality chosen per image rather than fixed; `nil` leaves it to
    /// the server (which chooses none unless `IMAGERY_AUTOQUALITY_METHOD` says so).
    public var autoQuality: ImgproxyAutoQuality?
    /// `format:best` (`f:best`, or `best` as the extension): every candidate format encoded and
    /// the smallest answered. Default: `false`.
    public var bestFormat = false
    /// Imagery's own option, not imgproxy's: `circle:1` masks the result to the largest centred
    /// circle, anti-aliased in alpha. Default: `false`.
    public var circle = false

    /// Every option at its default.
    public init() {}

    /// The box width in output pixels (`dpr` applied, rounded); 0 for "unset".
    public var targetWidth: Int { Int((Double(width) * dpr).rounded()) }
    /// The box height in output pixels (`dpr` applied, rounded); 0 for "unset".
    public var targetHeight: Int { Int((Double(height) * dpr).rounded()) }
}
