import Glibc
import Imagery
import ImageryCodecs

let heldTo = getenv("IMAGERY_FUZZ_FORMAT").map { String(cString: $0) }

/// The one format `IMAGERY_FUZZ_FORMAT` holds the run to (`heif`, `avif`, `jxl`, `svg`, `tiff`,
/// `bmp`, `ico`: an icon and a cursor alike), or every format.
let heldFormat: ImageFormat? = switch heldTo {
case "heif"?: .heic
case "avif"?: .avif
case "jxl"?: .jxl
case "svg"?: .svg
case "tiff"?: .tiff
case "bmp"?: .bmp
case "ico"?: .ico
default: nil
}

/// `IMAGERY_FUZZ_FORMAT=animation`: GIF and WebP inputs only, through the animated paths.
let animationOnly = heldTo == "animation"


/// libFuzzer calls this once, before the first input. fontconfig scans the system's fonts the
/// first time text is laid out, which under AddressSanitizer takes seconds: done here, it is
/// not charged to whichever input first has text (the bundled illustration) as a timeout.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    let text = #"<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><text y="12">Ag</text></svg>"#
    _ = try? ImageDecoder().decode(Array(text.utf8))
    return 0
}

/// libFuzzer calls this for every input (its runtime provides `main`). Every input goes through
/// both policies, a full decode and a draft thumbnail; any crash, sanitizer report or input
/// slower than `-timeout` is a finding. A run held to one format skips inputs of another, so
/// the mutations stay inside that decoder.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let heldFormat, ImageFormat(sniffing: bytes) != heldFormat { return 0 }
    var options = DecodingOptions()
    options.maximumPixelCount = 4_000_000
    if animationOnly {
        guard [.gif, .webp].contains(ImageFormat(sniffing: bytes)) else { return 0 }
        fuzzAnimation(bytes, options: options)
        return 0
    }
    if ImageFormat(sniffing: bytes) == .svg { fuzzSanitizer(bytes) }
    for policy in [DecodingPolicy.strict, .lenient] {
        options.policy = policy
        if let bitmap = try? ImageDecoder().decode(bytes, options: options) {
            precondition(bitmap.pixels.count >= bitmap.bytesPerRow * bitmap.height)
        }
        _ = try? Thumbnailer(resize: .fit(width: 64, height: 64), decodingOptions: options).thumbnail(from: bytes)
    }
    return 0
}

/// A sanitized document is a fixed point: sanitizing it again changes nothing (anything the
/// first pass let through that a second would drop is a hole), and it is still an SVG.
func fuzzSanitizer(_ bytes: [UInt8]) {
    guard let once = try? SVGSanitizer.sanitize(bytes) else { return }
    precondition(ImageFormat(sniffing: once) == .svg)
    let twice = try! SVGSanitizer.sanitize(once)
    precondition(twice == once, "sanitizing twice changed the document")
}

/// Every frame decoded, reduced, and written back as GIF (and WebP with the trait); an
/// animation that decodes must encode, and its GIF must decode to as many frames.
func fuzzAnimation(_ bytes: [UInt8], options: DecodingOptions) {
    var options = options
    options.animation = AnimationLimits(maximumFrameCount: 64)
    for policy in [DecodingPolicy.strict, .lenient] {
        options.policy = policy
        guard let animation = try? ImageDecoder().decodeAnimation(
            bytes, resize: .fit(width: 48, height: 48), allowsUpscaling: false, options: options
        ) else { continue }
        let gif = try! ImageEncoder(format: .gif).encode(animation)
        let again = try! ImageDecoder().decodeAnimation(gif, resize: nil, allowsUpscaling: false, options: options)
        precondition(again?.frames.count ?? 1 == animation.frames.count)
        if ImageEncoder.animatedFormats.contains(.webp) {
            _ = try! ImageEncoder(format: .webp, quality: 50).encode(animation)
        }
    }
}
