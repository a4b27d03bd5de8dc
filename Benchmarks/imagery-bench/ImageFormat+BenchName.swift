import Imagery

extension ImageFormat {
    /// The format a benchmark's `--formats` names by extension: jpg, webp, avif, heic or jxl.
    init?(benchName name: String) {
        switch name {
        case "jpg", "jpeg": self = .jpeg
        case "webp": self = .webp
        case "avif": self = .avif
        case "heic": self = .heic
        case "jxl": self = .jxl
        default: return nil
        }
    }
}
