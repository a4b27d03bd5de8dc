import Imagery

extension ImageFormat {
    /// The package trait that builds this format's codec in, for error messages.
    package var packageTrait: String {
        switch self {
        case .webp: "WebP"
        case .heic: "HEIF"
        case .avif: "AVIF"
        case .jxl: "JPEGXL"
        case .svg: "SVG"
        case .tiff: "TIFF"
        default: "AllFormats"
        }
    }
}
