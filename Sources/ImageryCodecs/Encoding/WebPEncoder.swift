#if WebP
import CWebP
import Imagery

/// WebP encoding through libwebp: lossless through its simple API, lossy through its
/// configuration, which takes the effort and the preset.
enum WebPEncoder {
    static func encode(_ bitmap: Bitmap, quality: Int, lossless: Bool, effort: Int = 4, preset: WebPPreset = .default) throws(ImageError) -> [UInt8] {
        if lossless {
            var output: UnsafeMutablePointer<UInt8>?
            let size = bitmap.pixels.withUnsafeBufferPointer { pixels in
                WebPEncodeLosslessRGBA(pixels.baseAddress, Int32(bitmap.width), Int32(bitmap.height), Int32(bitmap.bytesPerRow), &output)
            }
            defer { WebPFree(output) }
            guard size > 0, let output else { throw .encodingFailed(.webp, detail: "libwebp returned no data") }
            return Array(UnsafeBufferPointer(start: output, count: size))
        }
        // What WebPEncodeRGBA does, with the preset and the effort in the configuration: with
        // the default preset and effort 4 it writes the same bytes.
        var config = WebPConfig()
        guard WebPConfigPreset(&config, preset.libwebpPreset, Float(quality)) != 0 else {
            throw .encodingFailed(.webp, detail: "libwebp's version does not match its headers")
        }
        config.method = Int32(effort)
        guard WebPValidateConfig(&config) != 0 else { throw .encodingFailed(.webp, detail: "libwebp refused the configuration") }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else { throw .encodingFailed(.webp, detail: "libwebp's version does not match its headers") }
        picture.width = Int32(bitmap.width)
        picture.height = Int32(bitmap.height)
        defer { WebPPictureFree(&picture) }
        let imported = bitmap.pixels.withUnsafeBufferPointer { pixels in
            WebPPictureImportRGBA(&picture, pixels.baseAddress, Int32(bitmap.bytesPerRow))
        }
        guard imported != 0 else { throw .encodingFailed(.webp, detail: "libwebp could not take the pixels (out of memory)") }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let encoded = withUnsafeMutablePointer(to: &writer) { writer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writer)
            return WebPEncode(&config, &picture)
        }
        guard encoded != 0, writer.size > 0, let memory = writer.mem else {
            throw .encodingFailed(.webp, detail: "libwebp failed (error \(picture.error_code.rawValue))")
        }
        return Array(UnsafeBufferPointer(start: memory, count: writer.size))
    }
}

extension WebPPreset {
    var libwebpPreset: CWebP.WebPPreset {
        switch self {
        case .default: WEBP_PRESET_DEFAULT
        case .photo: WEBP_PRESET_PHOTO
        case .picture: WEBP_PRESET_PICTURE
        case .drawing: WEBP_PRESET_DRAWING
        case .icon: WEBP_PRESET_ICON
        case .text: WEBP_PRESET_TEXT
        }
    }
}
#endif
