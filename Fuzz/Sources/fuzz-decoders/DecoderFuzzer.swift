import Glibc
import Imagery
import ImageryCodecs

/// The one format `IMAGERY_FUZZ_FORMAT` holds the run to (`heif`, `avif`, `jxl`), or every format.
let heldFormat: ImageFormat? = switch getenv("IMAGERY_FUZZ_FORMAT").map({ String(cString: $0) }) {
case "heif"?: .heic
case "avif"?: .avif
case "jxl"?: .jxl
default: nil
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
    for policy in [DecodingPolicy.strict, .lenient] {
        options.policy = policy
        if let bitmap = try? ImageDecoder().decode(bytes, options: options) {
            precondition(bitmap.pixels.count >= bitmap.bytesPerRow * bitmap.height)
        }
        _ = try? Thumbnailer(resize: .fit(width: 64, height: 64), decodingOptions: options).thumbnail(from: bytes)
    }
    return 0
}
