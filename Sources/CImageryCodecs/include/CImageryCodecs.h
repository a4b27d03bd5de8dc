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

/// Encodes RGBA (alpha ignored) as baseline JPEG. `*out` is malloc'd: release it with img_free.
ImgStatus img_jpeg_encode(const uint8_t *rgba, int width, int height, size_t stride, int quality,
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

/// Encodes 8-bit RGBA (`channels` 4) or RGB (`channels` 3). `*out` is malloc'd: release it with img_free.
ImgStatus img_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int channels,
                         uint8_t **out, size_t *out_length, char *message, size_t message_capacity);

void img_free(void *pointer);

#endif
