#if WebP
import CWebP
import Imagery

/// Every frame of an animated WebP through libwebp's `WebPAnimDecoder`, which composes each
/// frame on its canvas (blending and disposal applied) and keeps the canvas itself: one
/// canvas in memory, and a copy per frame returned.
final class WebPAnimationReader: AnimationFrameReading {
    let canvasSize: PixelSize
    let frameCount: Int
    let loopCount: Int

    /// libwebp reads from this copy for the decoder's whole life.
    private let data: UnsafeMutableBufferPointer<UInt8>
    private let decoder: OpaquePointer
    private var lastTimestamp: Int32 = 0

    /// Checks the canvas against `options.maximumPixelCount` before libwebp allocates it.
    init(_ bytes: [UInt8], options: DecodingOptions) throws(ImageError) {
        guard let canvas = ImageHeader.size(of: bytes, format: .webp) else { throw .corrupt(.webp, detail: "unreadable animation header") }
        try options.checkPixelLimit(width: canvas.width, height: canvas.height)
        data = .allocate(capacity: bytes.count)
        _ = data.initialize(from: bytes)
        var decoderOptions = WebPAnimDecoderOptions()
        _ = WebPAnimDecoderOptionsInit(&decoderOptions)
        decoderOptions.color_mode = MODE_RGBA
        decoderOptions.use_threads = 0
        var webpData = WebPData(bytes: UnsafePointer(data.baseAddress), size: data.count)
        guard let decoder = WebPAnimDecoderNew(&webpData, &decoderOptions) else {
            data.deallocate()
            throw .corrupt(.webp, detail: "libwebp could not read the animation")
        }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else {
            WebPAnimDecoderDelete(decoder)
            data.deallocate()
            throw .corrupt(.webp, detail: "libwebp could not read the animation's header")
        }
        self.decoder = decoder
        canvasSize = PixelSize(width: Int(info.canvas_width), height: Int(info.canvas_height))
        frameCount = Int(info.frame_count)
        loopCount = Int(info.loop_count)
    }

    deinit {
        WebPAnimDecoderDelete(decoder)
        data.deallocate()
    }

    func nextFrame() throws(ImageError) -> AnimationFrame? {
        guard WebPAnimDecoderHasMoreFrames(decoder) != 0 else { return nil }
        var buffer: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer else {
            throw .corrupt(.webp, detail: "libwebp could not decode a frame")
        }
        let count = canvasSize.width * canvasSize.height * 4
        let pixels = [UInt8](UnsafeBufferPointer(start: buffer, count: count))
        // libwebp gives each frame's end time; the frame lasts from the previous one's.
        let duration = Duration.milliseconds(max(0, Int(timestamp) - Int(lastTimestamp)))
        lastTimestamp = timestamp
        var image = Bitmap(
            width: canvasSize.width, height: canvasSize.height, pixels: pixels, alphaMode: .straight,
            metadata: ImageMetadata(format: .webp, originalWidth: canvasSize.width, originalHeight: canvasSize.height)
        )
        if !image.hasTransparency { image.alphaMode = .opaque }
        return AnimationFrame(image: image, duration: duration)
    }
}
#endif
