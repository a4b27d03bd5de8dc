import Crypto
import Foundation
import Imagery
import ImageryCodecs
import ImageryImgproxy

/// `/info`'s answer for one source: the fields its options ask for, from the source bytes, its
/// header and, for the fields that need pixels, a draft of at most 100 × 100.
struct ImageInfo {
    let bytes: [UInt8]
    let format: ImageFormat
    /// The decoded draft, when a field needs pixels or the format says its orientation only when decoded.
    let draft: Bitmap?

    /// Whether `options` need a decoded draft for a source of `format`: the pixel fields, and
    /// the dimensions of any format but JPEG (whose EXIF orientation the header gives).
    static func needsDraft(_ options: ImgproxyInfoOptions, format: ImageFormat) -> Bool {
        options.needsPixels || options.alpha || options.bands || ((options.dimensions || options.exif) && format != .jpeg)
    }

    /// The JSON object, keys as imgproxy names them.
    func fields(_ options: ImgproxyInfoOptions) throws(ImageError) -> [String: Any] {
        var fields: [String: Any] = [:]
        if options.size { fields["size"] = bytes.count }
        if options.format {
            fields["format"] = format.rawValue
            fields["mime_type"] = format.mimeType
        }
        let orientation = draft?.metadata.sourceOrientation ?? ImageHeader.exifOrientation(ofJPEG: bytes) ?? .up
        if options.dimensions {
            let stored = draft?.metadata.originalSize ?? ImageHeader.size(of: bytes, format: format) ?? PixelSize(width: 0, height: 0)
            fields["width"] = orientation.swapsAxes ? stored.height : stored.width
            fields["height"] = orientation.swapsAxes ? stored.width : stored.height
            fields["orientation"] = orientation.rawValue
        }
        if options.exif { fields["exif"] = orientation == .up ? [String: String]() : ["Orientation": String(orientation.rawValue)] }
        if options.pagesNumber { fields["pages_number"] = max(1, ImageHeader.frameCount(of: bytes, format: format)) }
        if options.colorspace { fields["colorspace"] = "srgb" }
        if options.sampleFormat { fields["sample_format"] = "uchar" }
        guard let draft else { return fields }
        let transparent = draft.hasTransparency
        if options.bands { fields["bands"] = draft.alphaMode == .opaque ? 3 : 4 }
        if options.alpha { fields["alpha"] = options.checksTransparency ? transparent : draft.alphaMode != .opaque }
        if options.average { fields["average"] = Self.json(Self.average(of: draft, ignoringTransparent: options.averageIgnoresTransparent)) }
        if options.dominantColors {
            fields["dominant_colors"] = DominantColors.pick(from: draft, buildsMissed: options.buildsMissedColors).mapValues {
                ["R": Int($0.red), "G": Int($0.green), "B": Int($0.blue)]
            }
        }
        if options.palette > 0 {
            fields["palette"] = ColorSwatch.swatches(of: draft, count: options.palette).map { Self.json($0.color) }
        }
        if let components = options.blurHash {
            fields["blurhash"] = try BlurHash(image: draft, componentsX: components.x, componentsY: components.y).string
        }
        if options.thumbHash { fields["thumb_hash"] = try ThumbHash(image: draft).hex.uppercased() }
        if options.perceptualHash { fields["perceptual_hash"] = PerceptualHash.hash(of: draft) }
        return fields
    }

    /// `calc_hashsums`' digests of the source bytes, in hex.
    func hashsums(_ names: [String]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: names.map { ($0, Self.digest($0, of: bytes)) })
    }

    static func digest(_ name: String, of bytes: [UInt8]) -> String {
        switch name {
        case "md5": Hex.encode(Insecure.MD5.hash(data: bytes))
        case "sha1": Hex.encode(Insecure.SHA1.hash(data: bytes))
        case "sha512": Hex.encode(SHA512.hash(data: bytes))
        default: Hex.encode(SHA256.hash(data: bytes))
        }
    }

    /// The mean colour; pixels with no alpha at all are left out when `ignoringTransparent`
    /// (all of them being transparent gives transparent black).
    static func average(of image: Bitmap, ignoringTransparent: Bool) -> RGBA {
        let image = image.withStraightAlpha()
        var sums = (red: 0, green: 0, blue: 0, alpha: 0), count = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let pixel = image.pixel(x: x, y: y)
                if ignoringTransparent, pixel.alpha == 0 { continue }
                sums.red += Int(pixel.red)
                sums.green += Int(pixel.green)
                sums.blue += Int(pixel.blue)
                sums.alpha += Int(pixel.alpha)
                count += 1
            }
        }
        guard count > 0 else { return RGBA(red: 0, green: 0, blue: 0, alpha: 0) }
        func mean(_ sum: Int) -> UInt8 { UInt8((sum + count / 2) / count) }
        return RGBA(red: mean(sums.red), green: mean(sums.green), blue: mean(sums.blue), alpha: mean(sums.alpha))
    }

    static func json(_ color: RGBA) -> [String: Int] {
        ["R": Int(color.red), "G": Int(color.green), "B": Int(color.blue), "A": Int(color.alpha)]
    }
}
