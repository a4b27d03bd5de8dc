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

    /// Parses `/info` option segments.
    ///
    /// - Throws: ``ImgproxyError/Kind/invalidOption`` for an unknown option, a wrong argument
    ///   count or a value out of range; an option imgproxy has that needs what Imagery does not
    ///   do (`detect_objects`, `classify`, `crop`) is refused by name.
    public init(segments: some Sequence<some StringProtocol>) throws(ImgproxyError) {
        self.init()
        for segment in segments {
            let arguments = ImgproxyArguments(segment: segment)
            try apply(arguments)
        }
    }

    private mutating func apply(_ arguments: ImgproxyArguments) throws(ImgproxyError) {
        switch arguments.option {
        case "size", "s": size = try Self.flag(arguments)
        case "format", "f": format = try Self.flag(arguments)
        case "dimensions", "d": dimensions = try Self.flag(arguments)
        case "exif":
            try arguments.expect(atMost: 2)
            exif = try arguments.bool(at: 0) ?? true
        case "iptc", "xmp", "video_meta", "vm", "cachebuster", "cb":
            // No IPTC, XMP or video here: accepted, and their fields are absent.
            break
        case "pages_number", "pn": pagesNumber = try Self.flag(arguments)
        case "alpha", "a":
            try arguments.expect(atMost: 2)
            alpha = try arguments.bool(at: 0) ?? false
            checksTransparency = try arguments.bool(at: 1) ?? false
        case "colorspace", "cs": colorspace = try Self.flag(arguments)
        case "bands", "b": bands = try Self.flag(arguments)
        case "sample_format", "sf": sampleFormat = try Self.flag(arguments)
        case "average", "avg":
            try arguments.expect(atLeast: 1)
            try arguments.expect(atMost: 2)
            average = try arguments.bool(at: 0) ?? false
            averageIgnoresTransparent = try arguments.bool(at: 1) ?? true
        case "dominant_colors", "dc":
            try arguments.expect(atLeast: 1)
            try arguments.expect(atMost: 2)
            dominantColors = try arguments.bool(at: 0) ?? false
            buildsMissedColors = try arguments.bool(at: 1) ?? false
        case "palette", "p":
            try arguments.expect(exactly: 1)
            let colours = try arguments.int(at: 0, in: 0...256) ?? 0
            guard colours == 0 || colours >= 2 else { throw arguments.invalid("takes 0 (off) or 2 to 256 colours") }
            palette = colours
        case "blurhash", "bh":
            try arguments.expect(exactly: 2)
            let x = try arguments.int(at: 0, in: 0...9) ?? 0, y = try arguments.int(at: 1, in: 0...9) ?? 0
            blurHash = x > 0 && y > 0 ? Components(x: x, y: y) : nil
        case "thumb_hash", "thumbhash", "th": thumbHash = try Self.flag(arguments)
        case "perceptual_hash", "phash", "ph": perceptualHash = try Self.flag(arguments)
        case "calc_hashsums", "chs":
            for name in arguments.values where !name.isEmpty {
                guard Self.digests.contains(name) else { throw arguments.invalid("\(name.prefix(20)) is not md5, sha1, sha256 or sha512") }
                if !hashsums.contains(name) { hashsums.append(name) }
            }
        case "hashsum", "hs":
            try arguments.expect(exactly: 2)
            let type = arguments.values[0]
            if type == "none" || type.isEmpty {
                expectedHashsum = nil
            } else {
                guard Self.digests.contains(type) else { throw arguments.invalid("\(type.prefix(20)) is not md5, sha1, sha256 or sha512") }
                guard let bytes = Hex.decode(arguments.values[1]), !bytes.isEmpty else { throw arguments.invalid("the digest is not hex") }
                expectedHashsum = Hashsum(type: type, hex: Hex.encode(bytes))
            }
        case "expires", "exp":
            try arguments.expect(exactly: 1)
            guard let time = try arguments.int(at: 0, in: 0...ImgproxyLimits.latestExpiry) else { throw arguments.invalid("takes a Unix time") }
            expires = time
        case "detect_objects", "do", "classify", "cl", "crop", "c", "objects_position", "op", "obj_pos":
            throw ImgproxyError(.invalidOption, "\(arguments.option): object detection and info crops are not supported")
        default:
            throw ImgproxyError(.invalidOption, "unknown info option: \(arguments.option.prefix(40))")
        }
    }

    /// The fields that need the pixels of a decoded draft, not the header alone.
    public var needsPixels: Bool {
        (alpha && checksTransparency) || average || dominantColors || palette > 0 || blurHash != nil || thumbHash || perceptualHash
    }

    private static let digests: Set<String> = ["md5", "sha1", "sha256", "sha512"]

    private static func flag(_ arguments: ImgproxyArguments) throws(ImgproxyError) -> Bool {
        try arguments.expect(exactly: 1)
        return try arguments.bool(at: 0) ?? false
    }

    /// Everything that changes the answer, as one string.
    package var identity: String {
        let flags = [size, format, dimensions, exif, pagesNumber, alpha, checksTransparency, colorspace, bands, sampleFormat,
                     average, averageIgnoresTransparent, dominantColors, buildsMissedColors, thumbHash, perceptualHash]
        return flags.map { $0 ? "1" : "0" }.joined() + "|\(palette)|\(blurHash.map { "\($0.x)x\($0.y)" } ?? "")"
            + "|\(hashsums.joined(separator: ","))|\(expectedHashsum.map { $0.type + ":" + $0.hex } ?? "")|\(expires ?? 0)"
    }
}
