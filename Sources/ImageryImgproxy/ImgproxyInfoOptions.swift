import Imagery

/// The options of an imgproxy `/info` URL (`/info/{signature}/{options…}/plain/{source}`): which
/// fields the JSON answer carries. Every option has imgproxy's full and short names and
/// defaults: `size`, `format` and `dimensions` are on, the fields that need pixels are off.
///
/// ```swift
/// let options = try ImgproxyInfoOptions(segments: ["th:1", "bh:4:3", "avg:1"])
/// options.thumbHash            // true
/// options.blurHash?.x          // 4
/// options.needsPixels          // true: a draft is decoded
/// ```
public struct ImgproxyInfoOptions: Sendable, Hashable {
    /// `size`/`s`: the source's byte count. Default on.
    public var size = true
    /// `format`/`f`: its format and MIME type. Default on.
    public var format = true
    /// `dimensions`/`d`: width and height as displayed, and the EXIF orientation. Default on.
    public var dimensions = true
    /// `exif`: the EXIF fields Imagery reads (the orientation). Default on.
    public var exif = true
    /// `pages_number`/`pn`: frames of an animation, 1 for a still.
    public var pagesNumber = false
    /// `alpha`/`a`: whether the format can carry alpha and, with its second argument, whether
    /// any pixel is transparent.
    public var alpha = false
    /// `alpha`'s second argument, `check_transparency`: decode a draft and look.
    public var checksTransparency = false
    /// `colorspace`/`cs`: the colour space decoding gives (always sRGB here).
    public var colorspace = false
    /// `bands`/`b`: the channels decoding gives (3, or 4 with alpha).
    public var bands = false
    /// `sample_format`/`sf`: the sample type decoding gives (always 8-bit, `uchar`).
    public var sampleFormat = false
    /// `average`/`avg`: the average colour; with `ignore_transparent` (default on) pixels under
    /// half alpha are left out.
    public var average = false
    /// `average`'s second argument.
    public var averageIgnoresTransparent = true
    /// `dominant_colors`/`dc`: the vibrant and muted swatches; with `build_missed`, the ones the
    /// image lacks are derived from the ones it has.
    public var dominantColors = false
    /// `dominant_colors`'s second argument.
    public var buildsMissedColors = false
    /// `palette`/`p`: that many colours (2–256) by median cut; 0 is off.
    public var palette = 0
    /// `blurhash`/`bh`: BlurHash components across and down (1–9 each); `nil` is off.
    public var blurHash: Components?

    /// Components across (`x`) and down (`y`).
    public struct Components: Sendable, Hashable {
        public var x: Int
        public var y: Int

        public init(x: Int, y: Int) {
            self.x = x
            self.y = y
        }
    }
    /// `thumb_hash`/`th`: the ThumbHash, in hex.
    public var thumbHash = false
    /// `perceptual_hash`/`phash`/`ph`: a 64-bit DCT hash, in hex, for near-duplicate search.
    public var perceptualHash = false
    /// `calc_hashsums`/`chs`: digests of the source bytes (`md5`, `sha1`, `sha256`, `sha512`).
    public var hashsums: [String] = []
    /// `hashsum`/`hs`: a digest the source must have, else 422.
    public var expectedHashsum: Hashsum?

    /// A digest of the source bytes: its algorithm (`md5`, `sha1`, `sha256`, `sha512`) and its
    /// lowercase hex.
    public struct Hashsum: Sendable, Hashable {
        public var type: String
        public var hex: String

        public init(type: String, hex: String) {
            self.type = type
            self.hex = hex.lowercased()
        }
    }
    /// `expires`/`exp`: a Unix time after which the URL answers 404.
    public var expires: Int?

    /// The defaults: size, format and dimensions (with the EXIF orientation).
    public init() {}

    /// Parses `/info` option segments, every option allowed. A server parses under its own
    /// rules with ``init(segments:rules:)``.
    ///
    /// - Throws: ``ImgproxyError/Kind/invalidOption`` for an unknown option, a wrong argument
    ///   count or a value out of range; an option imgproxy has that needs what Imagery does not
    ///   do (`detect_objects`, `classify`, `crop`) is refused by name.
    public init(segments: some Sequence<some StringProtocol>) throws(ImgproxyError) {
        try self.init(parsing: segments, rules: ImgproxyOptionRules())
    }

    /// Parses `/info` option segments under a server's `rules`: its info presets, whether URLs
    /// name presets only, and which info options they may use
    /// (`IMAGERY_ALLOWED_INFO_OPTIONS`).
    ///
    /// ```swift
    /// let options = try ImgproxyInfoOptions(segments: ["th:1"], rules: rules)
    /// ```
    public init(segments: some Sequence<some StringProtocol>, rules: ImgproxyOptionRules) throws(ImgproxyError) {
        try self.init(parsing: segments, rules: rules)
    }

    /// The option segments that say these options, each at its short name, only those that
    /// differ from their defaults; `["s:1"]` when none do (a URL needs one segment).
    ///
    /// ```swift
    /// var options = ImgproxyInfoOptions()
    /// options.thumbHash = true
    /// options.segments   // ["th:1"]
    /// ```
    public var segments: [String] {
        let written = writtenSegments()
        return written.isEmpty ? ["s:1"] : written
    }

    /// The fields that need the pixels of a decoded draft, not the header alone.
    public var needsPixels: Bool {
        (alpha && checksTransparency) || average || dominantColors || palette > 0 || blurHash != nil || thumbHash || perceptualHash
    }

    static let digests: Set<String> = ["md5", "sha1", "sha256", "sha512"]
}
