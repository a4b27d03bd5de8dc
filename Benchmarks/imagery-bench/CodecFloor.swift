import CImageryBenchFloor
import CImageryCodecs
import Imagery
import ImageryCodecs

/// The codec floor for benchmarks: plain libjpeg-turbo and libpng decodes with their defaults,
/// the work no thumbnailer can avoid.
enum CodecFloor {
    /// Decodes a JPEG at `eighths`/8 scale to RGB, as `djpeg -scale N/8` does, and discards the rows.
    static func decodeJPEG(_ data: [UInt8], eighths: Int) -> PixelSize? {
        var width: Int32 = 0, height: Int32 = 0
        let status = data.withUnsafeBufferPointer { img_bench_jpeg_floor_decode($0.baseAddress, $0.count, Int32(eighths), &width, &height) }
        return status == 0 ? PixelSize(width: Int(width), height: Int(height)) : nil
    }

    /// Decodes a PNG to 8-bit RGBA with libpng's simplified API.
    static func decodePNG(_ data: [UInt8]) -> PixelSize? {
        var width: UInt32 = 0, height: UInt32 = 0
        let status = data.withUnsafeBufferPointer { img_bench_png_floor_decode($0.baseAddress, $0.count, &width, &height) }
        return status == 0 ? PixelSize(width: Int(width), height: Int(height)) : nil
    }

    /// The DCT scale (in eighths) Imagery's JPEG decoder picks for `resize`, from the header alone.
    static func jpegEighths(_ data: [UInt8], resize: Resize) -> Int? {
        guard let decoder = img_jpeg_decoder_create(1, 1000, 0) else { return nil }
        defer { img_jpeg_decoder_destroy(decoder) }
        var info = ImgJpegInfo()
        let status = data.withUnsafeBufferPointer { img_jpeg_read_header(decoder, $0.baseAddress, $0.count, &info) }
        guard status == IMG_OK else { return nil }
        let orientation = ExifReader.orientation(start: info.exif, count: info.exif_length)
        var options = DecodingOptions()
        options.draft = resize
        let scale = options.draftScale(storedSize: PixelSize(width: Int(info.width), height: Int(info.height)), orientation: orientation)
        return JPEGDecoder.eighths(forScale: scale)
    }
}
