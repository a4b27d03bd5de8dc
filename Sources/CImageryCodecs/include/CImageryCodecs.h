// A thin C layer over libjpeg-turbo and libpng.
//
// Both libraries report fatal errors by longjmp. Every function below that
// calls into them sets its own jump point first and turns a jump into a
// status code, so a longjmp never crosses a Swift frame.
#ifndef CIMAGERYCODECS_H
#define CIMAGERYCODECS_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    IMG_OK = 0,
    /// The library rejected the data; the message says why.
    IMG_ERR_CORRUPT = 1,
    /// The data ended before the image did.
    IMG_ERR_TRUNCATED = 2,
    /// A progressive JPEG has more scans than allowed (a CPU bomb).
    IMG_ERR_TOO_MANY_SCANS = 3,
    /// The decoder would need more working memory than allowed.
    IMG_ERR_OUT_OF_MEMORY = 4,
    /// The caller used the API out of order, or an argument was invalid.
    IMG_ERR_USAGE = 5,
} ImgStatus;

typedef enum {
    IMG_JPEG_UNKNOWN = 0,
    IMG_JPEG_GRAY = 1,
    IMG_JPEG_RGB = 2,
    IMG_JPEG_YCBCR = 3,
    IMG_JPEG_CMYK = 4,
    IMG_JPEG_YCCK = 5,
} ImgJpegColorSpace;

typedef struct {
    int width;
    int height;
    int components;
    ImgJpegColorSpace color_space;
    int progressive;
    /// Adobe APP14 seen: CMYK samples are stored inverted.
    int adobe_marker;
    /// The APP1 "Exif\0\0" payload (TIFF header onwards), or NULL. Owned by the decoder.
    const uint8_t *exif;
    size_t exif_length;
    /// The reassembled ICC profile, or NULL. Owned by the decoder.
    const uint8_t *icc;
    size_t icc_length;
} ImgJpegInfo;

typedef struct ImgJpegDecoder ImgJpegDecoder;

/// `strict`: a corruption warning (truncated data, bad entropy data) aborts the decode.
/// `max_scans`: progressive scans allowed before the decode is refused.
ImgJpegDecoder *img_jpeg_decoder_create(int strict, int max_scans, long max_memory);
void img_jpeg_decoder_destroy(ImgJpegDecoder *decoder);
/// Reads markers up to the first scan. `data` must outlive the decoder.
ImgStatus img_jpeg_read_header(ImgJpegDecoder *decoder, const uint8_t *data, size_t length, ImgJpegInfo *info);
/// Starts decompression at scale `scale_num`/8. Output is 4 bytes a pixel: RGBA (A = 255) or, for CMYK/YCCK sources, CMYK.
ImgStatus img_jpeg_start(ImgJpegDecoder *decoder, int scale_num, int fast, int *out_width, int *out_height);
ImgStatus img_jpeg_read_rows(ImgJpegDecoder *decoder, uint8_t *buffer, size_t stride, int max_rows, int *rows_read);
ImgStatus img_jpeg_finish(ImgJpegDecoder *decoder);
const char *img_jpeg_message(const ImgJpegDecoder *decoder);
int img_jpeg_warning_count(const ImgJpegDecoder *decoder);

// Incremental JPEG decoding while a download is in flight, for progressive previews
// (libjpeg's buffered-image mode over a suspending source). No call ever waits for
// data: feed consumes what it has been given and returns.
//
// Sequence: create; feed each chunk; once state.header_ready, read the info, choose the
// scale and call start (once); after any feed or start, if state.completed_scans has
// grown, render. When the download ends, call end. When state.finished, the next render
// is the final image.
//
// A scan counts as complete once all of it and the marker after it (the next scan's SOS,
// or EOI) have been consumed: only then can libjpeg render it without more input. A
// render shows that scan and, in rows the next scan has already reached, part of the
// next one. A baseline file is one scan, complete only at EOI: it gets no previews, just
// the final render. A truncated download is finished by end, as by a plain decode.
//
// IMG_ERR_USAGE leaves the decoder as it was; any other error is final (later calls
// return it) and the caller keeps its last render.

typedef struct ImgJpegProgressive ImgJpegProgressive;

typedef struct {
    /// IMG_OK, or the error that stopped the decoder.
    ImgStatus status;
    /// The header has been read: img_jpeg_progressive_info answers and start may be called.
    int header_ready;
    int started;
    /// Scans a render would show; 0 until the first is complete (a baseline file: until EOI).
    int completed_scans;
    /// EOI consumed: the next render is the final image; further bytes are ignored.
    int finished;
    /// Warnings that damaged pixels (not strict only: when strict, the first one is an error).
    int warnings;
    /// The render size, once started.
    int output_width;
    int output_height;
} ImgJpegProgressiveState;

/// `strict`, `max_scans` (0: no limit), `max_memory`: as img_jpeg_decoder_create. `max_pixels` (0: no limit):
/// a header whose width × height is larger is refused, IMG_ERR_OUT_OF_MEMORY, before image memory is allocated.
/// `max_memory` bounds libjpeg's buffers; the decoder's own copy of unconsumed input is bounded separately
/// (1 MiB once started), except between the header and start, when the bytes fed wait for start.
ImgJpegProgressive *img_jpeg_progressive_create(int strict, int max_scans, long max_memory, long max_pixels);
void img_jpeg_progressive_destroy(ImgJpegProgressive *p);
/// Copies the next `length` bytes of the file and consumes all it can. Before start, reads only the header.
ImgStatus img_jpeg_progressive_feed(ImgJpegProgressive *p, const uint8_t *data, size_t length);
/// No more bytes will come. If the file is incomplete (even if only its EOI is missing), libjpeg sees the
/// end as in a plain decode: when strict, IMG_ERR_TRUNCATED; otherwise a warning, the scan in progress
/// completes with zeros and state.finished is set (once started). Call it before or after start.
ImgStatus img_jpeg_progressive_end(ImgJpegProgressive *p);
ImgJpegProgressiveState img_jpeg_progressive_state(const ImgJpegProgressive *p);
/// The header, once state.header_ready. The EXIF and ICC pointers are owned by the decoder.
ImgStatus img_jpeg_progressive_info(const ImgJpegProgressive *p, ImgJpegInfo *info);
/// Fixes the output scale `scale_num`/8 for every render, the final one included (libjpeg cannot change it
/// later), then consumes what was fed so far. Output is as img_jpeg_start: 4 bytes a pixel, RGBA (A = 255)
/// or, for CMYK/YCCK sources, CMYK. Early scans are block-smoothed, except at 1/8, where each pixel is its
/// block's exact average (so a 1/8 render of a truncated file differs from img_jpeg_*, which smooths).
ImgStatus img_jpeg_progressive_start(ImgJpegProgressive *p, int scale_num, int *out_width, int *out_height);
/// Draws the last complete scan into `buffer`: output_height rows `stride` bytes apart, `capacity` bytes in all.
/// Reads no input. `*out_scans` (may be NULL): the scans shown. IMG_ERR_USAGE before the first complete scan.
ImgStatus img_jpeg_progressive_render(ImgJpegProgressive *p, uint8_t *buffer, size_t stride, size_t capacity,
                                      int *out_scans);
/// The error, or else the first warning.
const char *img_jpeg_progressive_message(const ImgJpegProgressive *p);

/// Encodes RGBA (alpha ignored) as baseline JPEG, or progressive when `progressive` is non-zero
/// (libjpeg's simple progression). `*out` is malloc'd: release it with img_free.
ImgStatus img_jpeg_encode(const uint8_t *rgba, int width, int height, size_t stride, int quality, int progressive,
                          uint8_t **out, size_t *out_length, char *message, size_t message_capacity);

typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int interlaced;
    /// The image has an alpha channel or a tRNS chunk.
    int has_alpha;
    const uint8_t *exif;
    uint32_t exif_length;
    const uint8_t *icc;
    uint32_t icc_length;
} ImgPngInfo;

typedef struct ImgPngDecoder ImgPngDecoder;

/// `data` must outlive the decoder.
ImgPngDecoder *img_png_decoder_create(const uint8_t *data, size_t length);
void img_png_decoder_destroy(ImgPngDecoder *decoder);
ImgStatus img_png_read_info(ImgPngDecoder *decoder, ImgPngInfo *info);
/// Sets up conversion to 8-bit straight RGBA.
ImgStatus img_png_start(ImgPngDecoder *decoder);
/// Reads the next rows of a non-interlaced image.
ImgStatus img_png_read_rows(ImgPngDecoder *decoder, uint8_t *buffer, size_t stride, uint32_t rows);
/// Reads the whole image at once (required for Adam7).
ImgStatus img_png_read_image(ImgPngDecoder *decoder, uint8_t *buffer, size_t stride);
/// Reads past the image data, so that a truncated or corrupt tail is noticed.
ImgStatus img_png_finish(ImgPngDecoder *decoder);
const char *img_png_message(const ImgPngDecoder *decoder);
int img_png_warning_count(const ImgPngDecoder *decoder);

/// Encodes 8-bit RGBA (`channels` 4) or RGB (`channels` 3), Adam7-interlaced when `interlaced`
/// is non-zero. `*out` is malloc'd: release it with img_free.
ImgStatus img_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int channels, int interlaced,
                         uint8_t **out, size_t *out_length, char *message, size_t message_capacity);

/// Encodes 8-bit RGBA rows as an RGB PNG, libpng dropping each pixel's fourth byte as it writes
/// the row (png_set_filler), so no RGB copy of the image is made: the bytes img_png_encode writes
/// for the same pixels as RGB. Adam7-interlaced when `interlaced` is non-zero. `*out` as above.
ImgStatus img_png_encode_dropping_alpha(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int interlaced,
                                        uint8_t **out, size_t *out_length, char *message, size_t message_capacity);

/// Writes an indexed PNG: `indices`, one byte a pixel and `width` bytes a row, into a palette of
/// `entries` (1...256) RGB triplets, `transparent_index` the one fully transparent entry (-1 for
/// none). Rows are packed to the fewest bits a pixel that hold `entries`. Adam7 when `interlaced`.
ImgStatus img_png_encode_indexed(const uint8_t *indices, uint32_t width, uint32_t height, const uint8_t *palette_rgb,
                                 int entries, int transparent_index, int interlaced, uint8_t **out, size_t *out_length,
                                 char *message, size_t message_capacity);

/// `bytes` compressed as a zlib stream (PNG's iCCP and zTXt), into malloc'd memory.
ImgStatus img_zlib_compress(const uint8_t *bytes, size_t length, uint8_t **out, size_t *out_length);

/// The CRC-32 of `bytes`, continuing `crc` (0 to start): PNG's chunk checksum.
uint32_t img_crc32(uint32_t crc, const uint8_t *bytes, size_t length);

void img_free(void *pointer);

#endif
