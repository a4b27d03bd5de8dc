#if HEIF
import CHeif
import Imagery

/// HEIC and HEIF through libheif (the `HEIF` package trait): the primary image, with alpha and
/// its ICC profile.
///
/// libheif applies the container's own transforms (`clap`, `irot`, `imir`) as it decodes, as
/// browsers do, so the result is upright and an EXIF orientation tag inside the file is not
/// applied a second time. HEVC has no reduced decode: a draft decode takes the file's embedded
/// thumbnail instead when that still covers the draft (iPhones store one of 320×240 or so),
/// and otherwise box-reduces the full decode to the draft before returning it; with
/// `DecodingOptions.prefersEmbeddedThumbnail` it takes the largest thumbnail there is.
struct HEIFDecoder: FormatDecoding {
    func decode(_ bytes: UnsafeBufferPointer<UInt8>, options: DecodingOptions) throws(ImageError) -> DecodedImage {
        // libheif's default limit (32768 a side) bounds what it allocates before a size is
        // known; the pixel limit is checked on the primary image's size before decoding.
        guard let context = heif_context_alloc() else { throw .corrupt(.heic, detail: "libheif could not allocate a context") }
        defer { heif_context_free(context) }
        // One decode, one thread: the server runs as many decodes as it has cores.
        heif_context_set_max_decoding_threads(context, 0)
        try Self.check(heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil), stage: "reading the container")

        var primary: OpaquePointer?
        try Self.check(heif_context_get_primary_image_handle(context, &primary), stage: "finding the primary image")
        guard let primary else { throw .corrupt(.heic, detail: "no primary image") }
        defer { heif_image_handle_release(primary) }
        let width = Int(heif_image_handle_get_width(primary)), height = Int(heif_image_handle_get_height(primary))
        try options.checkPixelLimit(width: width, height: height)

        let thumbnail = Self.thumbnail(of: primary, covering: options, width: width, height: height)
        defer { if let thumbnail { heif_image_handle_release(thumbnail) } }
        let handle = thumbnail ?? primary
        let hasAlpha = heif_image_handle_has_alpha_channel(handle) != 0

        let decodingOptions = heif_decoding_options_alloc()
        defer { heif_decoding_options_free(decodingOptions) }
        decodingOptions?.pointee.convert_hdr_to_8bit = 1
        var image: OpaquePointer?
        try Self.check(
            heif_decode_image(handle, &image, heif_colorspace_RGB, hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, decodingOptions),
            stage: "decoding"
        )
        guard let image else { throw .corrupt(.heic, detail: "libheif returned no image") }
        defer { heif_image_release(image) }

        let outWidth = Int(heif_image_get_width(image, heif_channel_interleaved))
        let outHeight = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard outWidth > 0, outHeight > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw .corrupt(.heic, detail: "libheif returned an empty plane")
        }
        // What the thumbnail did not reduce, a box stage does, down to the draft.
        let scale = options.draftScale(storedSize: PixelSize(width: outWidth, height: outHeight), orientation: .up)
        let (pixels, size) = RowCollector.collect(
            plane: plane, stride: Int(stride), width: outWidth, height: outHeight, channels: hasAlpha ? 4 : 3,
            factor: DecodingOptions.boxFactor(forScale: scale), hasAlpha: hasAlpha
        )
        let premultiplied = hasAlpha && heif_image_handle_is_premultiplied_alpha(handle) != 0
        // An enforced thumbnail is the image, as imgproxy's enforce_thumbnail makes it: its size
        // is the original's, so a resize never enlarges it back towards the primary's.
        let (originalWidth, originalHeight) = thumbnail != nil && options.prefersEmbeddedThumbnail ? (outWidth, outHeight) : (width, height)
        let metadata = ImageMetadata(
            format: .heic, originalWidth: originalWidth, originalHeight: originalHeight, decodeScale: Double(size.width) / Double(originalWidth)
        )
        let bitmap = Bitmap(
            width: size.width, height: size.height, pixels: pixels,
            alphaMode: hasAlpha ? (premultiplied ? .premultiplied : .straight) : .opaque, metadata: metadata
        )
        return DecodedImage(bitmap: bitmap, iccProfile: Self.iccProfile(of: primary))
    }

    /// The embedded thumbnail with the fewest pixels that still covers the draft, if any; with
    /// ``DecodingOptions/prefersEmbeddedThumbnail``, the largest there is, whatever it covers.
    static func thumbnail(of primary: OpaquePointer, covering options: DecodingOptions, width: Int, height: Int) -> OpaquePointer? {
        let scale = options.draftScale(storedSize: PixelSize(width: width, height: height), orientation: .up)
        let enforced = options.prefersEmbeddedThumbnail
        guard scale < 1 || enforced else { return nil }
        let count = Int(heif_image_handle_get_number_of_thumbnails(primary))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif_image_handle_get_list_of_thumbnail_IDs(primary, &ids, Int32(count)))
        var best: OpaquePointer?
        var bestPixels = Int.max
        for id in ids.prefix(listed) {
            var candidate: OpaquePointer?
            guard heif_image_handle_get_thumbnail(primary, id, &candidate).code == heif_error_Ok, let candidate else { continue }
            let thumbWidth = Int(heif_image_handle_get_width(candidate)), thumbHeight = Int(heif_image_handle_get_height(candidate))
            // A thumbnail of another aspect ratio (or orientation) would crop or stretch.
            let sameShape = abs(thumbWidth * height - thumbHeight * width) <= max(width, height)
            let covers = Double(thumbWidth) >= (Double(width) * scale).rounded(.up) && Double(thumbHeight) >= (Double(height) * scale).rounded(.up)
            let better = enforced ? bestPixels == .max || thumbWidth * thumbHeight > bestPixels : sameShape && covers && thumbWidth * thumbHeight < bestPixels
            if better {
                if let best { heif_image_handle_release(best) }
                best = candidate
                bestPixels = thumbWidth * thumbHeight
            } else {
                heif_image_handle_release(candidate)
            }
        }
        return best
    }

    static func iccProfile(of handle: OpaquePointer) -> [UInt8]? {
        guard heif_image_handle_get_color_profile_type(handle) != heif_color_profile_type_not_present else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0, size < 4 << 20 else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        let error = profile.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return error.code == heif_error_Ok ? profile : nil
    }

    static func check(_ error: heif_error, stage: String) throws(ImageError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "code \(error.code.rawValue)"
        switch (error.code, error.subcode) {
        case (_, heif_suberror_Security_limit_exceeded):
            throw .corrupt(.heic, detail: "over libheif's size limit (while \(stage)): \(message)")
        case (_, heif_suberror_End_of_data):
            throw .truncated(.heic, detail: "\(message) (while \(stage))")
        case (heif_error_Unsupported_filetype, _), (heif_error_Unsupported_feature, _):
            throw .unsupportedFormat(.heic, reason: "libheif: \(message)")
        default:
            throw .corrupt(.heic, detail: "libheif: \(message) (while \(stage))")
        }
    }
}
#endif
