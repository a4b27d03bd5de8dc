/// An 8-bit RGBA image in memory: the pixel type every Imagery stage produces and consumes.
///
/// Pixels are stored row by row, four bytes a pixel in the order red, green, blue, alpha.
/// Decoders produce **straight (unassociated) alpha**, or ``AlphaMode/opaque`` when the
/// image has no alpha at all; resampling works internally in premultiplied alpha and
/// converts back. ``alphaMode`` always says which convention the bytes follow.
///
/// A bitmap also carries what decoding learned about its source: the format, the original
/// pixel size and the EXIF orientation (see ``ImageMetadata``).
///
/// ```swift
/// let bitmap = try ImageDecoder().decode(data)
/// print(bitmap.width, bitmap.height, bitmap.metadata.format)
/// let thumbnail = bitmap.resized(.fit(width: 256, height: 256))
/// ```
public struct Bitmap: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from the start of one row to the start of the next (at least `width * 4`).
    public let bytesPerRow: Int
    /// How the alpha channel relates to the colour channels.
    public var alphaMode: AlphaMode
    /// How the stored pixels must be transformed for display. ``ImageOrientation/up``
    /// once orientation has been applied.
    public var orientation: ImageOrientation
    /// What decoding learned about the source.
    public var metadata: ImageMetadata
    /// The pixel bytes, `bytesPerRow * height` of them.
    public internal(set) var pixels: [UInt8]

    /// Creates a bitmap over existing RGBA bytes.
    ///
    /// - Precondition: `pixels.count >= bytesPerRow * height` and `bytesPerRow >= width * 4`.
    public init(
        width: Int,
        height: Int,
        bytesPerRow: Int? = nil,
        pixels: [UInt8],
        alphaMode: AlphaMode = .straight,
        orientation: ImageOrientation = .up,
        metadata: ImageMetadata? = nil
    ) {
        let stride = bytesPerRow ?? width * 4
        precondition(width > 0 && height > 0, "Bitmap needs a positive size, got \(width)x\(height)")
        precondition(stride >= width * 4, "bytesPerRow \(stride) is less than width * 4")
        precondition(pixels.count >= stride * height, "pixel buffer holds \(pixels.count) bytes, need \(stride * height)")
        self.width = width
        self.height = height
        self.bytesPerRow = stride
        self.pixels = pixels
        self.alphaMode = alphaMode
        self.orientation = orientation
        self.metadata = metadata ?? ImageMetadata(format: nil, originalWidth: width, originalHeight: height)
    }

    /// A bitmap of one colour.
    public init(width: Int, height: Int, filledWith color: RGBA, metadata: ImageMetadata? = nil) {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in Swift.stride(from: 0, to: pixels.count, by: 4) {
            pixels[index] = color.red
            pixels[index + 1] = color.green
            pixels[index + 2] = color.blue
            pixels[index + 3] = color.alpha
        }
        self.init(
            width: width, height: height, pixels: pixels,
            alphaMode: color.alpha == 255 ? .opaque : .straight, metadata: metadata
        )
    }

    /// The pixel at (`x`, `y`) in stored orientation.
    public func pixel(x: Int, y: Int) -> RGBA {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)x\(height)")
        let index = y * bytesPerRow + x * 4
        return RGBA(red: pixels[index], green: pixels[index + 1], blue: pixels[index + 2], alpha: pixels[index + 3])
    }

    /// The size in display orientation, after ``orientation`` is applied.
    public var displaySize: PixelSize {
        orientation.swapsAxes ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
    }
}
