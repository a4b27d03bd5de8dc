import Imagery

/// `/info`'s JSON answer, field names as imgproxy writes them; a field the options did not ask
/// for is absent.
struct InfoAnswer: Encodable, Sendable {
    /// A colour as imgproxy writes one: `{"R": 255, "G": 128, "B": 0}`, with `A` where it has one.
    struct Color: Encodable, Sendable, Equatable {
        var red: Int
        var green: Int
        var blue: Int
        var alpha: Int?

        init(_ color: RGBA, withAlpha: Bool) {
            red = Int(color.red)
            green = Int(color.green)
            blue = Int(color.blue)
            alpha = withAlpha ? Int(color.alpha) : nil
        }

        enum CodingKeys: String, CodingKey {
            case red = "R", green = "G", blue = "B", alpha = "A"
        }
    }

    var size: Int?
    var format: String?
    var mimeType: String?
    var width: Int?
    var height: Int?
    var orientation: Int?
    var exif: [String: String]?
    var pagesNumber: Int?
    var colorspace: String?
    var sampleFormat: String?
    var bands: Int?
    var alpha: Bool?
    var average: Color?
    var dominantColors: [String: Color]?
    var palette: [Color]?
    var blurhash: String?
    var thumbHash: String?
    var perceptualHash: String?
    var hashsums: [String: String]?

    enum CodingKeys: String, CodingKey {
        case size, format, width, height, orientation, exif, colorspace, bands, alpha, average, palette, blurhash, hashsums
        case mimeType = "mime_type", pagesNumber = "pages_number", sampleFormat = "sample_format"
        case dominantColors = "dominant_colors", thumbHash = "thumb_hash", perceptualHash = "perceptual_hash"
    }
}
