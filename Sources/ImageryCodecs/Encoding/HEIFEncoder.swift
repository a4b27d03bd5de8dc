#if HEIF
import CHeif
import Imagery

/// HEIC encoding through libheif and x265 (the `HEIF` package trait): one still, 8-bit, with
/// alpha only when the image has transparency.
///
/// `quality` (1–100) is libheif's own lossy quality, which libheif maps onto x265's rate factor;
/// libvips passes imgproxy's `q` to libheif the same way, so the same `q` asks x265 for the same
/// rate factor as imgproxy's HEIC output does.
enum HEIFEncoder {
    static func encode(_ bitmap: Bitmap, quality: Int) throws(ImageError) -> [UInt8] {
        guard let context = heif_context_alloc() else { throw .encodingFailed(.heic, detail: "libheif could not allocate a context") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder), stage: "finding an HEVC encoder")
        guard let encoder else { throw .encodingFailed(.heic, detail: "libheif has no HEVC encoder") }
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, Int32(min(100, max(1, quality)))), stage: "setting the quality")
        // One encode, one thread where x265 takes the hint: the server runs as many encodes as
        // it has cores. An x265 without the parameter encodes as it would anyway.
        // x265's own default preset, not libheif's "slow": much faster for slightly larger
        // files, while faster presets save little more, since x265's setup for each image
        // dominates at thumbnail sizes (Benchmarks/README.md, "HEIC and JPEG XL out").
        _ = heif_encoder_set_parameter_string(encoder, "preset", "medium")
        _ = heif_encoder_set_parameter_string(encoder, "x265:pools", "none")
        _ = heif_encoder_set_parameter_string(encoder, "x265:frame-threads", "1")

        let opaque = bitmap.alphaMode == .opaque || !bitmap.hasTransparency
        var image: OpaquePointer?
        try check(
            heif_image_create(Int32(bitmap.width), Int32(bitmap.height), heif_colorspace_RGB,
                              opaque ? heif_chroma_interleaved_RGB : heif_chroma_interleaved_RGBA, &image),
            stage: "creating an image"
        )
        guard let image else { throw .encodingFailed(.heic, detail: "libheif could not allocate an image") }
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(bitmap.width), Int32(bitmap.height), 8), stage: "adding a plane")
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
            throw .encodingFailed(.heic, detail: "libheif gave no plane to write")
        }
        bitmap.copyRows(to: plane, stride: Int(stride), keepingAlpha: !opaque)
        let options = heif_encoding_options_alloc()
        defer { heif_encoding_options_free(options) }
        options?.pointee.save_alpha_channel = opaque ? 0 : 1
        try check(heif_context_encode_image(context, image, encoder, options, nil), stage: "encoding")

        let output = Output()
        var writer = heif_writer(writer_api_version: 1) { _, data, size, userdata in
            let output = Unmanaged<Output>.fromOpaque(userdata!).takeUnretainedValue()
            if let data { output.bytes += UnsafeRawBufferPointer(start: data, count: size) }
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        try withExtendedLifetime(output) { () throws(ImageError) in
            try check(heif_context_write(context, &writer, Unmanaged.passUnretained(output).toOpaque()), stage: "writing")
        }
        guard !output.bytes.isEmpty else { throw .encodingFailed(.heic, detail: "libheif wrote nothing") }
        return output.bytes
    }

    /// What libheif's writer callback appends to, owned by the encode that passes it in.
    private final class Output {
        var bytes: [UInt8] = []
    }

    private static func check(_ error: heif_error, stage: String) throws(ImageError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        throw .encodingFailed(.heic, detail: "libheif: \(message) (while \(stage))")
    }
}
#endif
