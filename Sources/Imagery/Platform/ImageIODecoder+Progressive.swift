#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO

// Apple platforms only. When to make a preview (a progressive JPEG, new bytes since the last)
// is decided by ImageHeader.isProgressiveJPEG and the pipeline's interval, both tested on
// Linux; this file only hands ImageIO the bytes and draws what it has.

extension ImageIODecoder {
    /// Previews of a progressive JPEG while it downloads, through ImageIO's incremental image
    /// source; other formats give none.
    public func progressiveDecoder(resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions) -> (any ProgressiveDecoding)? {
        IncrementalImageSource(decoder: self, resize: resize, allowsUpscaling: allowsUpscaling, options: options)
    }
}

/// The bytes so far in a `CGImageSourceCreateIncremental` source, drawn as the final decode
/// draws (limits checked, oriented, sRGB) whenever more of a progressive JPEG has arrived.
final class IncrementalImageSource: ProgressiveDecoding {
    private let decoder: ImageIODecoder
    private let resize: Resize?
    private let allowsUpscaling: Bool
    private let options: DecodingOptions
    private let source = CGImageSourceCreateIncremental(nil)
    private var data = Data()
    private var isProgressive: Bool?
    private var bytesShown = 0

    init(decoder: ImageIODecoder, resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions) {
        self.decoder = decoder
        self.resize = resize
        self.allowsUpscaling = allowsUpscaling
        self.options = options
    }

    func append(_ bytes: [UInt8]) throws(ImageError) {
        data.append(contentsOf: bytes)
        if isProgressive == nil { isProgressive = ImageHeader.isProgressiveJPEG([UInt8](data.prefix(64 << 10))) }
        if isProgressive == false { throw .unsupportedFormat(.jpeg, reason: "no previews: not a progressive JPEG") }
        CGImageSourceUpdateData(source, data as CFData, false)
    }

    func preview() throws(ImageError) -> Bitmap? {
        guard isProgressive == true, data.count > bytesShown, CGImageSourceGetStatusAtIndex(source, 0) == .statusIncomplete else { return nil }
        bytesShown = data.count
        return try decoder.thumbnail(
            of: source, format: .jpeg, signature: [UInt8](data.prefix(16)), resize: resize, allowsUpscaling: allowsUpscaling,
            options: options, isPreview: true
        )
    }
}
#endif
