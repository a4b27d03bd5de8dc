// A thin C layer over libtiff 4.5: reading the first page of an in-memory TIFF as 8-bit RGBA
// rows, and writing one.
//
// libtiff reports through callbacks with a va_list, which Swift cannot take: each handle gets
// its own error and warning handlers here (TIFFOpenOptions), which keep the first message in
// the decoder instead of writing to stderr as libtiff's global handlers do.
#ifndef CIMAGERYTIFF_H
#define CIMAGERYTIFF_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    IMG_TIFF_OK = 0,
    /// libtiff rejected the data; the message says why.
    IMG_TIFF_CORRUPT = 1,
    /// A strip or tile lies beyond the end of the data.
    IMG_TIFF_TRUNCATED = 2,
    /// A layout libtiff's RGBA reader does not convert (16-bit CMYK, a JPEG-in-TIFF oddity…).
    IMG_TIFF_UNSUPPORTED = 3,
    /// An allocation over the per-handle limit was refused.
    IMG_TIFF_OUT_OF_MEMORY = 4,
    IMG_TIFF_USAGE = 5,
} ImgTiffStatus;

typedef struct {
    uint32_t width;
    uint32_t height;
    uint16_t samples_per_pixel;
    uint16_t bits_per_sample;
    uint16_t photometric;
    uint16_t compression;
    /// 1 to 8, as EXIF's orientation (TIFF defined it first).
    uint16_t orientation;
    /// 0: none; 1: associated (premultiplied); 2: unassociated.
    uint16_t alpha;
    int tiled;
    /// Rows a strip or a tile holds: how many rows one read should ask for.
    uint32_t rows_per_block;
    /// The ICC profile, or NULL. Owned by the decoder.
    const uint8_t *icc;
    uint32_t icc_length;
} ImgTiffInfo;

typedef struct ImgTiffDecoder ImgTiffDecoder;

/// `data` must outlive the decoder. No single allocation libtiff makes for it may exceed
/// `max_single_allocation` bytes.
ImgTiffDecoder *img_tiff_decoder_create(const uint8_t *data, size_t length, size_t max_single_allocation);
void img_tiff_decoder_destroy(ImgTiffDecoder *decoder);
/// Reads the first directory (the first page) without decoding pixels.
ImgTiffStatus img_tiff_read_header(ImgTiffDecoder *decoder, ImgTiffInfo *info);
/// Prepares libtiff's RGBA reader, rows kept in stored order. `strict`: a damaged strip or tile fails the read.
ImgTiffStatus img_tiff_start(ImgTiffDecoder *decoder, int strict);
/// Decodes rows `first_row ..< first_row + count` into `rows` (width × count pixels, 4 bytes
/// each: R, G, B, A, premultiplied when the image has alpha).
ImgTiffStatus img_tiff_read_rows(ImgTiffDecoder *decoder, uint8_t *rows, uint32_t first_row, uint32_t count);
/// After `img_tiff_start`: 0 without alpha, 1 when the rows carry premultiplied alpha, 2 when
/// straight (libtiff premultiplies unassociated colour alpha, but not grey).
int img_tiff_alpha_mode(const ImgTiffDecoder *decoder);
/// The first error (or, with none, warning) libtiff reported; empty when there was none.
const char *img_tiff_message(const ImgTiffDecoder *decoder);
int img_tiff_warning_count(const ImgTiffDecoder *decoder);

typedef enum {
    IMG_TIFF_COMPRESSION_NONE = 1,
    IMG_TIFF_COMPRESSION_LZW = 5,
    IMG_TIFF_COMPRESSION_DEFLATE = 8,
    IMG_TIFF_COMPRESSION_PACKBITS = 32773,
} ImgTiffCompression;

/// Encodes packed RGBA (`channels` 4, straight alpha kept as unassociated alpha) or RGB
/// (`channels` 3) with horizontal differencing for LZW and Deflate. The output is malloc'd
/// (free it with `img_tiff_free`).
ImgTiffStatus img_tiff_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t bytes_per_row, int channels,
                              ImgTiffCompression compression, uint8_t **out, size_t *out_length, char *message, size_t message_capacity);
void img_tiff_free(void *pointer);

#endif
