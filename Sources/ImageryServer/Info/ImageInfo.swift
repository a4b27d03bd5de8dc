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

    /// The answer `options` ask for.
    func answer(_ options: ImgproxyInfoOptions) throws(ImageError) -> InfoAnswer {
        var answer = InfoAnswer()
        if options.size { answer.size = bytes.count }
        if options.format {
            answer.format = format.rawValue
            answer.mimeType = format.mimeType
        }
        let orientation = draft?.metadata.sourceOrientation ?? ImageHeader.exifOrientation(ofJPEG: bytes) ?? .up
        if options.dimensions {
            let stored = draft?.metadata.originalSize ?? ImageHeader.size(of: bytes, format: format) ?? PixelSize(width: 0, height: 0)
            answer.width = orientation.swapsAxes ? stored.height : stored.width
            answer.height = orientation.swapsAxes ? stored.width : stored.height
            answer.orientation = orientation.rawValue
        }
        if options.exif { answer.exif = orientation == .up ? [:] : ["Orientation": String(orientation.rawValue)] }
        if options.pagesNumber { answer.pagesNumber = max(1, ImageHeader.frameCount(of: bytes, format: format)) }
        if options.colorspace { answer.colorspace = "srgb" }
        if options.sampleFormat { answer.sampleFormat = "uchar" }
        if !options.hashsums.isEmpty { answer.hashsums = hashsums(options.hashsums) }
        guard let draft else { return answer }
        if options.bands { answer.bands = draft.alphaMode == .opaque ? 3 : 4 }
        if options.alpha { answer.alpha = options.checksTransparency ? draft.hasTransparency : draft.alphaMode != .opaque }
        if options.average {
            answer.average = InfoAnswer.Color(Self.average(of: draft, ignoringTransparent: options.averageIgnoresTransparent), withAlpha: true)
        }
        if options.dominantColors {
            answer.dominantColors = DominantColors.pick(from: draft, buildsMissed: options.buildsMissedColors).mapValues {
                InfoAnswer.Color($0, withAlpha: false)
            }
        }
        if options.palette > 0 {
            answer.palette = ColorSwatch.swatches(of: draft, count: options.palette).map { InfoAnswer.Color($0.color, withAlpha: true) }
        }
        if let components = options.blurHash {
            answer.blurhash = try BlurHash(image: draft, componentsX: components.x, componentsY: components.y).string
        }
        if options.thumbHash { answer.thumbHash = try ThumbHash(image: draft).hex.uppercased() }
        if options.perceptualHash { answer.perceptualHash = PerceptualHash.hash(of: draft) }
        return answer
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
}
