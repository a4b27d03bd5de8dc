import Imagery

/// The default decoder: recognises the format from the bytes and decodes JPEG, PNG, GIF (first
/// frame), BMP and ICO, and with package traits WebP (`WebP`), HEIC (`HEIF`), AVIF (`AVIF`),
/// JPEG XL (`JPEGXL`), SVG (`SVG`, rendered at the size asked for, within ``svgLimits``) and
/// TIFF (`TIFF`, the first page); `AllFormats` turns on all six. A format recognised but not
/// built in is refused with `ImageError.unsupportedFormat`, naming the trait.
///
/// The result is upright (EXIF orientation applied) and in sRGB, with straight alpha.
///
/// ```swift
/// let bytes = try [UInt8](Data(contentsOf: url))
/// let bitmap = try ImageDecoder().decode(bytes)
///
/// var options = DecodingOptions()
/// options.draft = .fit(width: 256, height: 256)     // let JPEG decode at 1/8 scale
/// options.policy = .lenient                          // accept truncated files, flagged
/// let draft = try ImageDecoder().decode(bytes, options: options)
/// ```
public struct ImageDecoder: ImageDecoding {
    /// What an SVG document is held to before it renders. Default: ``SVGLimits/init()``.
    public var svgLimits = SVGLimits()

    /// The default decoder.
    public init() {}

    /// A decoder that holds SVG documents to `svgLimits`.
    ///
    /// ```swift
    /// var limits = SVGLimits()
    /// limits.maximumBytes = nil      // documents of any size
    /// let decoder = ImageDecoder(svgLimits: limits)
    /// ```
    public init(svgLimits: SVGLimits) {
        self.svgLimits = svgLimits
    }

    /// The formats this build can decode.
    public static var supportedFormats: Set<ImageFormat> {
        var formats: Set<ImageFormat> = [.jpeg, .png, .gif, .bmp, .ico]
        #if WebP
        formats.insert(.webp)
        #endif
        #if HEIF
        formats.insert(.heic)
        #endif
        #if AVIF
        formats.insert(.avif)
        #endif
        #if JPEGXL
        formats.insert(.jxl)
        #endif
        #if SVG
        formats.insert(.svg)
        #endif
        #if TIFF
        formats.insert(.tiff)
        #endif
        return formats
    }

    /// Decodes `data` into an upright sRGB bitmap with straight alpha.
    ///
    /// - Throws: `ImageError` naming the format and what was wrong.
    public func decode(_ data: [UInt8], options: DecodingOptions = DecodingOptions()) throws(ImageError) -> Bitmap {
        let decoded = try decodeStored(data, options: options)
        let icc = decoded.iccProfile
        // Taken out of `decoded`, so the conversions below change the decoded pixels in place.
        var bitmap = (consume decoded).bitmap
        bitmap.makeStraightAlpha()
        Self.convertColor(&bitmap, iccProfile: icc, enabled: options.convertsColor)
        if options.appliesOrientation { bitmap = bitmap.oriented() }
        return bitmap
    }

    /// Decodes without applying orientation or colour conversion (for the thumbnail path,
    /// which does both after resampling).
    func decodeStored(_ data: [UInt8], options: DecodingOptions) throws(ImageError) -> DecodedImage {
        guard !data.isEmpty else { throw .emptyData }
        guard let format = ImageFormat(sniffing: data) else {
            throw .unrecognizedFormat(signature: ImageError.signature(of: data))
        }
        let decoder = try decoder(for: format)
        let result: Result<DecodedImage, ImageError> = data.withUnsafeBufferPointer { buffer in
            Result { () throws(ImageError) -> DecodedImage in try decoder.decode(buffer, options: options) }
        }
        var decoded = try result.get()
        if !options.keptMetadata.isEmpty {
            let embedded = EmbeddedMetadata.read(from: data, format: format, iccProfile: decoded.iccProfile).keeping(options.keptMetadata)
            decoded.bitmap.metadata.embedded = embedded.isEmpty ? nil : embedded
        }
        return decoded
    }

    func decoder(for format: ImageFormat) throws(ImageError) -> any FormatDecoding {
        switch format {
        case .jpeg: return JPEGDecoder()
        case .png: return PNGDecoder()
        case .gif: return GIFDecoder()
        case .webp:
            #if WebP
            return WebPDecoder()
            #else
            throw Self.notBuilt(.webp)
            #endif
        case .heic:
            #if HEIF
            return HEIFDecoder()
            #else
            throw Self.notBuilt(.heic)
            #endif
        case .avif:
            #if AVIF
            return AVIFDecoder()
            #else
            throw Self.notBuilt(.avif)
            #endif
        case .jxl:
            #if JPEGXL
            return JPEGXLDecoder()
            #else
            throw Self.notBuilt(.jxl)
            #endif
        case .svg:
            #if SVG
            return SVGDecoder(limits: svgLimits)
            #else
            throw Self.notBuilt(.svg)
            #endif
        case .tiff:
            #if TIFF
            return TIFFDecoder()
            #else
            throw Self.notBuilt(.tiff)
            #endif
        case .bmp: return BMPDecoder()
        case .ico: return ICODecoder()
        }
    }

    static func notBuilt(_ format: ImageFormat) -> ImageError {
        .unsupportedFormat(format, reason: "this build reads no \(format) (build with --traits \(format.packageTrait))")
    }

    /// Converts from an embedded RGB matrix/TRC profile to sRGB and records what was done.
    static func convertColor(_ decoded: DecodedImage, enabled: Bool) -> Bitmap {
        var bitmap = decoded.bitmap
        convertColor(&bitmap, iccProfile: decoded.iccProfile, enabled: enabled)
        return bitmap
    }

    /// ``convertColor(_:enabled:)`` in place: a bitmap nothing else holds is converted without a copy.
    package static func convertColor(_ bitmap: inout Bitmap, iccProfile icc: [UInt8]?, enabled: Bool) {
        guard let icc else { return }
        guard let profile = ColorProfile(iccData: icc) else {
            bitmap.metadata.colorProfile = ColorProfileInfo(name: "unsupported ICC profile (not RGB matrix/TRC)", convertedToSRGB: false)
            return
        }
        let convert = enabled && !profile.isSRGB
        if convert {
            bitmap.makeStraightAlpha()
            profile.convertToSRGB(&bitmap)
        }
        bitmap.metadata.colorProfile = ColorProfileInfo(name: profile.name, convertedToSRGB: convert)
    }
}
