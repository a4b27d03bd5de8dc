#if WebP
import CWebP
import Imagery

/// WebP encoding through libwebp's simple API.
enum WebPEncoder {
    static func encode(_ bitmap: Bitmap, quality: Int, lossless: Bool) throws(ImageError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>?
        let size = bitmap.pixels.withUnsafeBufferPointer { pixels in
            lossless
                ? WebPEncodeLosslessRGBA(pixels.baseAddress, Int32(bitmap.width), Int32(bitmap.height), Int32(bitmap.bytesPerRow), &output)
                : WebPEncodeRGBA(pixels.baseAddress, Int32(bitmap.width), Int32(bitmap.height), Int32(bitmap.bytesPerRow), Float(quality), &output)
        }
        defer { WebPFree(output) }
        guard size > 0, let output else { throw .encodingFailed(.webp, detail: "libwebp returned no data") }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }
}
#endif
