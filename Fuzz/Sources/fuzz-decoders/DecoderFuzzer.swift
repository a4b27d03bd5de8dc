import Imagery
import ImageryCodecs

/// libFuzzer calls this for every input (its runtime provides `main`). Every input goes through
/// both policies, a full decode and a draft thumbnail; any crash, sanitizer report or input
/// slower than `-timeout` is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecoders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
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
