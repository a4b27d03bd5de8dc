/// An image container format, recognised from its leading bytes, never from a file name.
///
/// ```swift
/// switch ImageFormat(sniffing: data) {
/// case .jpeg?: print("a JPEG")
/// case let other?: print("\(other) is recognised")
/// case nil: print("not an image")
/// }
/// ```
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case jpeg
    case png
    case gif
    case webp
    case heic
    case avif
    /// JPEG XL, as a bare codestream or in its ISO container.
    case jxl
    case tiff
    case bmp
    /// Windows icons and cursors (ICO and CUR): a directory of BMP- or PNG-encoded images.
    case ico
    /// SVG, an XML document whose root element is `<svg>`.
    case svg

    /// The media type, as in `Content-Type` and `Accept` headers: `image/jpeg`, `image/webp` …
    ///
    /// ```swift
    /// ImageFormat.webp.mimeType   // "image/webp"
    /// ImageFormat.svg.mimeType    // "image/svg+xml"
    /// ```
    public var mimeType: String {
        switch self {
        case .ico: "image/x-icon"
        case .svg: "image/svg+xml"
        default: "image/" + rawValue
        }
    }

    /// Recognises the format from the first bytes of `bytes`, or returns `nil`. An SVG is
    /// recognised by its root element, which must be `<svg>` and come within the first 64 KiB
    /// (after an XML declaration, comments and a document type), so that other XML and text
    /// are not taken for one.
    public init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(32))
        func matches(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if matches([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if matches(Array("GIF87a".utf8)) || matches(Array("GIF89a".utf8)) {
            self = .gif
        } else if matches(Array("RIFF".utf8)) && matches(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if matches([0xFF, 0x0A]) || matches([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            self = .jxl
        } else if matches([0x49, 0x49, 0x2A, 0x00]) || matches([0x4D, 0x4D, 0x00, 0x2A]) {
            self = .tiff
        } else if matches(Array("BM".utf8)) && head.count >= 14 {
            self = .bmp
        } else if Self.isIconDirectory(head) {
            self = .ico
        } else if matches(Array("ftyp".utf8), at: 4), let format = Self.isoBrand(head) {
            self = format
        } else if Self.svgRootTag(in: bytes) != nil {
            self = .svg
        } else {
            return nil
        }
    }

    /// ICO and CUR have six bytes of header (reserved 0, type 1 or 2, a count) and no magic
    /// beyond them, so the first directory entry must be plausible too: its reserved byte zero
    /// and its data after the directory.
    private static func isIconDirectory(_ head: [UInt8]) -> Bool {
        guard head.count >= 22, head[0] == 0, head[1] == 0, head[2] == 1 || head[2] == 2, head[3] == 0 else { return false }
        let count = Int(head[4]) | Int(head[5]) << 8
        let offset = Int(head[18]) | Int(head[19]) << 8 | Int(head[20]) << 16 | Int(head[21]) << 24
        return count > 0 && head[9] == 0 && offset >= 6 + 16 * count
    }

    /// HEIF-family files are ISO boxes: the `ftyp` box names a major brand and compatible brands.
    private static func isoBrand(_ head: [UInt8]) -> ImageFormat? {
        let brands = stride(from: 8, to: head.count - 3, by: 4).map { String(decoding: head[$0..<$0 + 4], as: UTF8.self) }
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
        if brands.contains(where: { ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains($0) }) {
            return .heic
        }
        return nil
    }

    /// The usual file name extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .tiff: "tif"
        default: rawValue
        }
    }

    public var description: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .heic: "HEIC"
        case .avif: "AVIF"
        case .jxl: "JPEG XL"
        case .tiff: "TIFF"
        case .bmp: "BMP"
        case .ico: "ICO"
        case .svg: "SVG"
        }
    }
}
