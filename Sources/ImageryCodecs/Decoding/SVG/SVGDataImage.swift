import Foundation
import Imagery

/// A raster image embedded in a `data:` URL, as `<image>` and `<feImage>` may carry one. librsvg
/// hands these to gdk-pixbuf, which decodes a dozen formats with no size limit, so only PNG
/// and baseline JPEG pass (the most used loaders; a progressive JPEG's scans are a CPU bomb
/// that gdk-pixbuf does not bound), their headers' sizes are charged against the pixel limit,
/// and the URL is written anew from the bytes checked, so that librsvg decodes exactly those.
enum SVGDataImage {
    /// The canonical `data:` URL of the image in `value`, or `nil` when it is not a PNG or
    /// baseline JPEG within `pixelsLeft`, which it is charged against.
    static func checked(_ value: String, pixelsLeft: inout Int) -> String? {
        guard let bytes = decode(value), let format = ImageFormat(sniffing: bytes), format == .png || format == .jpeg else { return nil }
        if format == .jpeg, ImageHeader.isProgressiveJPEG(bytes) != false { return nil }
        guard let size = ImageHeader.size(of: bytes, format: format) else { return nil }
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard !overflow, pixels <= pixelsLeft else { return nil }
        pixelsLeft -= pixels
        return "data:\(format.mimeType);base64," + Data(bytes).base64EncodedString()
    }

    /// The bytes of a `data:` URL, base64 or percent-encoded.
    static func decode(_ value: String) -> [UInt8]? {
        let text = SVGText.trimmed(value)
        guard text.lowercased().hasPrefix("data:"), let comma = text.firstIndex(of: ",") else { return nil }
        let header = text[text.index(text.startIndex, offsetBy: 5)..<comma].lowercased()
        let payload = text[text.index(after: comma)...]
        if header.hasSuffix(";base64") {
            let compact = payload.filter { !$0.isWhitespace }
            return Data(base64Encoded: String(compact)).map { [UInt8]($0) }
        }
        return percentDecoded(Array(payload.utf8))
    }

    /// Binary bytes from `%XX` escapes (an image is not text, so not through `String`).
    private static func percentDecoded(_ bytes: [UInt8]) -> [UInt8]? {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hex(bytes[index + 1]), let low = hex(bytes[index + 2]) else { return nil }
                result.append(high << 4 | low)
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }
}
