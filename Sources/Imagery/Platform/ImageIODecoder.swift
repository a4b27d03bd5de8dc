#if canImport(ImageIO)
import CoreGraphics
import Foundation
import ImageIO

// Apple platforms only: the decoder of `ImagePipeline.Configuration.platformDefault` there.

/// Decodes with Apple's ImageIO behind the same `ImageDecoding` protocol as the Linux codecs:
/// every format the system reads (HEIC and AVIF included), downsampled while decoding through
/// ImageIO's thumbnail API, upright, drawn into an sRGB `Bitmap`.
///
/// ```swift
/// let pipeline = ImagePipeline(configuration: .init(decoder: ImageIODecoder()))
/// ```
///
/// The pipeline calls it off the main actor, so the decode and the draw never block the UI.
/// The pixel limit is checked against the header before any pixel is decoded, and data that
/// ends early is refused under `strict`.
public struct ImageIODecoder: ImageDecoding {
    /// A decoder with no settings: limits and policy come with each request's options.
    public init() {}

    public func decode(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> Bitmap {
        try decodeThumbnail(data, resize: nil, allowsUpscaling: false, options: options)
    }

    public func decode(_ data: [UInt8], resize: Resize, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> Bitmap {
        try decodeThumbnail(data, resize: resize, allowsUpscaling: allowsUpscaling, options: options)
    }

    private func decodeThumbnail(_ data: [UInt8], resize: Resize?, allowsUpscaling: Bool, options: DecodingOptions) throws(ImageError) -> Bitmap {
        guard !data.isEmpty else { throw .emptyData }
        guard let source = CGImageSourceCreateWithData(Data(data) as CFData, nil) else {
            throw .unrecognizedFormat(signature: ImageError.signature(of: data))
        }
        return try thumbnail(of: source, format: ImageFormat(sniffing: data), signature: data, resize: resize, allowsUpscaling: allowsUpscaling, options: options)
    }

    /// The image of `source`, checked against the limits and drawn at the size `resize` asks:
    /// the whole decode, and (from an incremental source) each preview.
    func thumbnail(
        of source: CGImageSource, format: ImageFormat?, signature: [UInt8], resize: Resize?, allowsUpscaling: Bool,
        options: DecodingOptions, isPreview: Bool = false
    ) throws(ImageError) -> Bitmap {
        let described = format ?? .jpeg
        let data = signature
        guard let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
              let width = properties[kCGImagePropertyPixelWidth] as? Int,
              let height = properties[kCGImagePropertyPixelHeight] as? Int, width > 0, height > 0
        else {
            throw format.map { .corrupt($0, detail: "ImageIO could not read the header") }
                ?? .unrecognizedFormat(signature: ImageError.signature(of: data))
        }
        guard width * height <= options.maximumPixelCount else {
            throw .tooLarge(width: width, height: height, limit: options.maximumPixelCount)
        }
        if !isPreview, options.policy == .strict, CGImageSourceGetStatus(source) != .statusComplete {
            throw .truncated(described, detail: "ImageIO reports the data incomplete")
        }

        let orientation = (properties[kCGImagePropertyOrientation] as? Int).flatMap { ImageOrientation(rawValue: $0) } ?? .up
        let upright = orientation.swapsAxes ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
        var plan: ResizePlan?
        if let resize { plan = try resize.plan(for: upright, allowsUpscaling: allowsUpscaling) }
        let reduction = min(1, plan?.scale ?? 1)
        let longSide = (Double(max(upright.width, upright.height)) * reduction).rounded(.up)
        let thumbnailOptions = [
            kCGImageSourceThumbnailMaxPixelSize: max(1, Int(longSide)),
            kCGImageSourceCreateThumbnailFromImageAlways: true,
            kCGImageSourceCreateThumbnailWithTransform: options.appliesOrientation,
            kCGImageSourceShouldCacheImmediately: true,
        ] as CFDictionary
        guard let image = CGImageSourceCreateThumbnailAtIndex(source, 0, thumbnailOptions) else {
            throw .corrupt(described, detail: "ImageIO could not decode the image")
        }

        var bitmap = try draw(image, format: format, original: PixelSize(width: width, height: height), orientation: orientation, options: options)
        if let plan {
            // ImageIO rounds its thumbnail's size, so its short side can be a pixel under the
            // plan's: resample to the size planned on the original (which already honours
            // `allowsUpscaling`), cropping the centre as `.fill` does.
            let size = plan.outputSize
            bitmap = try bitmap.resized(.fill(width: size.width, height: size.height), allowsUpscaling: true)
        }
        return bitmap
    }

    /// Draws `image` into a new RGBA bitmap in sRGB: this is where the pixels are decoded and
    /// colour-converted, on the caller's thread.
    private func draw(_ image: CGImage, format: ImageFormat?, original: PixelSize, orientation: ImageOrientation, options: DecodingOptions) throws(ImageError) -> Bitmap {
        let width = image.width, height = image.height
        let opaque = [.none, .noneSkipLast, .noneSkipFirst].contains(image.alphaInfo)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let drawn = pixels.withUnsafeMutableBytes { buffer -> Bool in
            guard let space = CGColorSpace(name: CGColorSpace.sRGB),
                  let context = CGContext(
                      data: buffer.baseAddress, width: width, height: height, bitsPerComponent: 8,
                      bytesPerRow: width * 4, space: space,
                      bitmapInfo: (opaque ? CGImageAlphaInfo.noneSkipLast : .premultipliedLast).rawValue
                  )
            else { return false }
            context.interpolationQuality = .high
            context.draw(image, in: CGRect(x: 0, y: 0, width: width, height: height))
            return true
        }
        guard drawn else { throw .corrupt(format ?? .jpeg, detail: "Core Graphics could not draw the decoded image") }
        if opaque {
            // noneSkipLast leaves the padding byte undefined; Bitmap promises alpha 255.
            for index in stride(from: 3, to: pixels.count, by: 4) { pixels[index] = 255 }
        }
        return Bitmap(
            width: width, height: height, pixels: pixels,
            alphaMode: opaque ? .opaque : .premultiplied,
            orientation: options.appliesOrientation ? .up : orientation,
            metadata: ImageMetadata(
                format: format, originalWidth: original.width, originalHeight: original.height,
                sourceOrientation: orientation, decodeScale: 1
            )
        )
    }
}
#endif
