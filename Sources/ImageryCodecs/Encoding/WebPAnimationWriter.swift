#if WebP
import CWebP
import Imagery

/// Animated WebP through libwebp's `WebPAnimEncoder`, which finds each frame's changed
/// rectangle and chooses its blending and disposal. Frames are handed to libwebp as they are
/// added; it keeps what it needs of them, not the caller's bitmaps.
final class WebPAnimationWriter {
    private let loopCount: Int
    private var config = WebPConfig()
    private var encoder: OpaquePointer?
    private var size: PixelSize?
    private var timestamp = 0

    init(loopCount: Int, quality: Int, lossless: Bool) throws(ImageError) {
        guard WebPConfigInit(&config) != 0 else { throw .encodingFailed(.webp, detail: "libwebp version mismatch") }
        config.quality = Float(quality)
        config.lossless = lossless ? 1 : 0
        self.loopCount = loopCount
    }

    deinit {
        if let encoder { WebPAnimEncoderDelete(encoder) }
    }

    func add(_ frame: AnimationFrame) throws(ImageError) {
        let image = frame.image.withStraightAlpha()
        let encoder = try encoder(for: PixelSize(width: image.width, height: image.height))
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

    func finish() throws(ImageError) -> [UInt8] {
        guard let encoder else { throw .invalidRequest("an animation needs at least one frame") }
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

    /// libwebp's encoder, made at the first frame's size; every later frame must match it.
    private func encoder(for frameSize: PixelSize) throws(ImageError) -> OpaquePointer {
        if let encoder, let size {
            guard size == frameSize else { throw .invalidRequest("an animation's frames must all be \(size.width)x\(size.height)") }
            return encoder
        }
        var options = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&options) != 0 else { throw .encodingFailed(.webp, detail: "libwebp version mismatch") }
        options.anim_params.loop_count = Int32(min(loopCount, 65535))
        guard let made = WebPAnimEncoderNew(Int32(frameSize.width), Int32(frameSize.height), &options) else {
            throw .encodingFailed(.webp, detail: "libwebp could not start an animation")
        }
        encoder = made
        size = frameSize
        return made
    }
}
#endif
