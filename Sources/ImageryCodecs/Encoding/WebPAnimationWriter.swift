#if WebP
import CWebP
import Imagery

/// Animated WebP through libwebp's `WebPAnimEncoder`, which finds each frame's changed
/// rectangle and chooses its blending and disposal.
enum WebPAnimationEncoder {
    static func encode(_ animation: AnimatedImage, quality: Int, lossless: Bool) throws(ImageError) -> [UInt8] {
        let size = animation.size
        var options = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&options) != 0 else { throw .encodingFailed(.webp, detail: "libwebp version mismatch") }
        options.anim_params.loop_count = Int32(min(animation.loopCount, 65535))
        guard let encoder = WebPAnimEncoderNew(Int32(size.width), Int32(size.height), &options) else {
            throw .encodingFailed(.webp, detail: "libwebp could not start an animation")
        }
        defer { WebPAnimEncoderDelete(encoder) }
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else { throw .encodingFailed(.webp, detail: "libwebp version mismatch") }
        config.quality = Float(quality)
        config.lossless = lossless ? 1 : 0
        var timestamp = 0
        for frame in animation.frames {
            let image = frame.image.withStraightAlpha()
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else { throw .encodingFailed(.webp, detail: "libwebp version mismatch") }
            picture.width = Int32(image.width)
            picture.height = Int32(image.height)
            picture.use_argb = 1
            let added = image.pixels.withUnsafeBufferPointer { pixels -> Bool in
                defer { WebPPictureFree(&picture) }
                guard WebPPictureImportRGBA(&picture, pixels.baseAddress, Int32(image.bytesPerRow)) != 0 else { return false }
                return WebPAnimEncoderAdd(encoder, &picture, Int32(clamping: timestamp), &config) != 0
            }
            guard added else { throw .encodingFailed(.webp, detail: String(cString: WebPAnimEncoderGetError(encoder))) }
            timestamp += Int(frame.duration / .milliseconds(1))
        }
        guard WebPAnimEncoderAdd(encoder, nil, Int32(clamping: timestamp), nil) != 0 else {
            throw .encodingFailed(.webp, detail: String(cString: WebPAnimEncoderGetError(encoder)))
        }
        var data = WebPData()
        guard WebPAnimEncoderAssemble(encoder, &data) != 0, let bytes = data.bytes else {
            throw .encodingFailed(.webp, detail: String(cString: WebPAnimEncoderGetError(encoder)))
        }
        defer { WebPFree(UnsafeMutableRawPointer(mutating: bytes)) }
        return Array(UnsafeBufferPointer(start: bytes, count: data.size))
    }
}
#endif
