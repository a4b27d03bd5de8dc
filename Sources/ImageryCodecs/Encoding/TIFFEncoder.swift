import Imagery
#if TIFF
import CImageryTIFF
#endif

/// How ``ImageEncoder`` compresses TIFF output: all lossless.
public enum TIFFCompression: Sendable, Hashable, CaseIterable {
    /// LZW with horizontal differencing: what every TIFF reader opens, the default.
    case lzw
    /// Deflate (zlib) with horizontal differencing: smaller than LZW, slower to write.
    case deflate
    /// PackBits run lengths: fast, and small only on flat artwork.
    case packBits
    /// Stored as is.
    case none
}

#if TIFF
/// TIFF through libtiff: 8-bit RGB, or RGB with unassociated (straight) alpha when the image
/// has transparency, one page, strips of about 8 KiB.
enum TIFFEncoder {
    static func encode(_ bitmap: Bitmap, compression: TIFFCompression) throws(ImageError) -> [UInt8] {
        let channels: Int32 = bitmap.alphaMode == .opaque || !bitmap.hasTransparency ? 3 : 4
        let method: ImgTiffCompression = switch compression {
        case .lzw: IMG_TIFF_COMPRESSION_LZW
        case .deflate: IMG_TIFF_COMPRESSION_DEFLATE
        case .packBits: IMG_TIFF_COMPRESSION_PACKBITS
        case .none: IMG_TIFF_COMPRESSION_NONE
        }
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = bitmap.pixels.withUnsafeBufferPointer { pixels in
            message.withUnsafeMutableBufferPointer { text in
                img_tiff_encode(
                    pixels.baseAddress, UInt32(bitmap.width), UInt32(bitmap.height), bitmap.bytesPerRow, channels, method,
                    &out, &length, text.baseAddress, text.count
                )
            }
        }
        defer { img_tiff_free(out) }
        guard status == IMG_TIFF_OK, let out else {
            let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw .encodingFailed(.tiff, detail: text.isEmpty ? "libtiff status \(status.rawValue)" : text)
        }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }
}
#endif
