#include "CImageryCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <png.h>
#include <zlib.h>

struct ImgPngDecoder {
    png_structp png;
    png_infop info;
    jmp_buf jump;
    const uint8_t *data;
    size_t length;
    size_t offset;
    int hit_end;
    int warnings;
    int started;
    uint32_t next_row;
    uint32_t height;
    char message[256];
};

static void on_png_error(png_structp png, png_const_charp text) {
    ImgPngDecoder *decoder = (ImgPngDecoder *)png_get_error_ptr(png);
    snprintf(decoder->message, sizeof decoder->message, "%s", text);
    longjmp(decoder->jump, 1);
}

static void on_png_warning(png_structp png, png_const_charp text) {
    ImgPngDecoder *decoder = (ImgPngDecoder *)png_get_error_ptr(png);
    decoder->warnings += 1;
    (void)text;
}

static void on_png_read(png_structp png, png_bytep out, size_t count) {
    ImgPngDecoder *decoder = (ImgPngDecoder *)png_get_io_ptr(png);
    if (count > decoder->length - decoder->offset) {
        decoder->hit_end = 1;
        png_error(png, "data ends before the image does");
    }
    memcpy(out, decoder->data + decoder->offset, count);
    decoder->offset += count;
}

static ImgStatus failure(ImgPngDecoder *decoder) {
    return decoder->hit_end ? IMG_ERR_TRUNCATED : IMG_ERR_CORRUPT;
}

ImgPngDecoder *img_png_decoder_create(const uint8_t *data, size_t length) {
    ImgPngDecoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->length = length;
    decoder->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, decoder, on_png_error, on_png_warning);
    if (!decoder->png) { free(decoder); return NULL; }
    decoder->info = png_create_info_struct(decoder->png);
    if (!decoder->info) {
        png_destroy_read_struct(&decoder->png, NULL, NULL);
        free(decoder);
        return NULL;
    }
    png_set_read_fn(decoder->png, decoder, on_png_read);
    // Ancillary chunks (text, ICC) are bounded; the image size is checked by the caller.
    png_set_chunk_malloc_max(decoder->png, 16u << 20);
    png_set_user_limits(decoder->png, 1u << 20, 1u << 20);
    return decoder;
}

void img_png_decoder_destroy(ImgPngDecoder *decoder) {
    if (!decoder) return;
    png_destroy_read_struct(&decoder->png, &decoder->info, NULL);
    free(decoder);
}

ImgStatus img_png_read_info(ImgPngDecoder *decoder, ImgPngInfo *info) {
    if (!decoder || !info) return IMG_ERR_USAGE;
    png_structp png = decoder->png;
    png_infop pinfo = decoder->info;
    if (setjmp(decoder->jump)) return failure(decoder);
    png_read_info(png, pinfo);
    memset(info, 0, sizeof *info);
    info->width = png_get_image_width(png, pinfo);
    info->height = png_get_image_height(png, pinfo);
    info->bit_depth = png_get_bit_depth(png, pinfo);
    info->color_type = png_get_color_type(png, pinfo);
    info->interlaced = png_get_interlace_type(png, pinfo) != PNG_INTERLACE_NONE;
    info->has_alpha = (info->color_type & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, pinfo, PNG_INFO_tRNS);
#ifdef PNG_eXIf_SUPPORTED
    png_bytep exif = NULL;
    png_uint_32 exif_length = 0;
    if (png_get_eXIf_1(png, pinfo, &exif_length, &exif) && exif) {
        info->exif = exif;
        info->exif_length = exif_length;
    }
#endif
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 profile_length = 0;
    if (png_get_iCCP(png, pinfo, &name, &compression, &profile, &profile_length) && profile) {
        info->icc = profile;
        info->icc_length = profile_length;
    }
    decoder->height = info->height;
    return IMG_OK;
}

ImgStatus img_png_start(ImgPngDecoder *decoder) {
    if (!decoder || decoder->started) return IMG_ERR_USAGE;
    png_structp png = decoder->png;
    png_infop pinfo = decoder->info;
    if (setjmp(decoder->jump)) return failure(decoder);
    int color_type = png_get_color_type(png, pinfo);
    int bit_depth = png_get_bit_depth(png, pinfo);
    if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color_type == PNG_COLOR_TYPE_GRAY && bit_depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, pinfo, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (bit_depth == 16) png_set_scale_16(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    if (!(color_type & PNG_COLOR_MASK_ALPHA) && !png_get_valid(png, pinfo, PNG_INFO_tRNS)) {
        png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
    }
    png_set_interlace_handling(png);
    png_read_update_info(png, pinfo);
    if (png_get_rowbytes(png, pinfo) != (size_t)png_get_image_width(png, pinfo) * 4) {
        snprintf(decoder->message, sizeof decoder->message, "unexpected row size after conversion to RGBA");
        return IMG_ERR_CORRUPT;
    }
    decoder->started = 1;
    return IMG_OK;
}

ImgStatus img_png_read_rows(ImgPngDecoder *decoder, uint8_t *buffer, size_t stride, uint32_t rows) {
    if (!decoder || !decoder->started || !buffer) return IMG_ERR_USAGE;
    if (rows > decoder->height - decoder->next_row) return IMG_ERR_USAGE;
    png_structp png = decoder->png;
    if (setjmp(decoder->jump)) return failure(decoder);
    for (uint32_t i = 0; i < rows; i++) {
        png_read_row(png, buffer + (size_t)i * stride, NULL);
        decoder->next_row += 1;
    }
    return IMG_OK;
}

ImgStatus img_png_read_image(ImgPngDecoder *decoder, uint8_t *buffer, size_t stride) {
    if (!decoder || !decoder->started || !buffer || decoder->next_row != 0) return IMG_ERR_USAGE;
    png_structp png = decoder->png;
    png_bytep *rows = malloc(sizeof(png_bytep) * (decoder->height ? decoder->height : 1));
    if (!rows) return IMG_ERR_OUT_OF_MEMORY;
    for (uint32_t y = 0; y < decoder->height; y++) rows[y] = buffer + (size_t)y * stride;
    // `rows` is heap memory whose pointer is not modified after setjmp, so it is safe to free after a jump.
    if (setjmp(decoder->jump)) { free(rows); return failure(decoder); }
    png_read_image(png, rows);
    free(rows);
    decoder->next_row = decoder->height;
    return IMG_OK;
}

ImgStatus img_png_finish(ImgPngDecoder *decoder) {
    if (!decoder || !decoder->started) return IMG_ERR_USAGE;
    if (decoder->next_row != decoder->height) return IMG_ERR_USAGE;
    png_structp png = decoder->png;
    if (setjmp(decoder->jump)) return failure(decoder);
    png_read_end(png, NULL);
    return IMG_OK;
}

const char *img_png_message(const ImgPngDecoder *decoder) { return decoder ? decoder->message : ""; }
int img_png_warning_count(const ImgPngDecoder *decoder) { return decoder ? decoder->warnings : 0; }

/// The buffer an encode writes into: allocated at deflate's worst case for the image up front,
/// of which only the pages written become resident, and grown only if that is not enough.
struct png_output {
    uint8_t *data;
    size_t length;
    size_t capacity;
};

static void png_write_to_output(png_structp png, png_bytep bytes, png_size_t length) {
    struct png_output *output = (struct png_output *)png_get_io_ptr(png);
    if (length > SIZE_MAX - output->length) png_error(png, "output too large");
    if (output->length + length > output->capacity) {
        size_t capacity = output->capacity;
        while (capacity < output->length + length) {
            if (capacity > SIZE_MAX / 2) png_error(png, "output too large");
            capacity *= 2;
        }
        uint8_t *grown = realloc(output->data, capacity);
        if (!grown) png_error(png, "out of memory");
        output->data = grown;
        output->capacity = capacity;
    }
    memcpy(output->data + output->length, bytes, length);
    output->length += length;
}

static void png_flush_nothing(png_structp png) { (void)png; }

struct png_encode_context {
    jmp_buf jump;
    char *message;
    size_t message_capacity;
};

static void on_png_encode_error(png_structp png, png_const_charp text) {
    struct png_encode_context *context = (struct png_encode_context *)png_get_error_ptr(png);
    if (context->message && context->message_capacity) snprintf(context->message, context->message_capacity, "%s", text);
    longjmp(context->jump, 1);
}

static void on_png_encode_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

/// A palette for an indexed PNG: `entries` RGB triplets, and the one entry that is transparent
/// (-1 for none).
struct png_palette {
    const uint8_t *rgb;
    int entries;
    int transparent_index;
};

/// Writes `height` rows of `in_channels` bytes a pixel as 8-bit RGB or RGBA (`out_channels`);
/// 4 in and 3 out drops each pixel's fourth byte as libpng writes the row (png_set_filler), so
/// no RGB copy of the image is made. With `palette`, the rows are one index a byte, written at
/// the fewest bits a pixel the palette allows. Adam7 when `interlaced`.
static ImgStatus png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int in_channels,
                            int out_channels, const struct png_palette *palette, int interlaced, uint8_t **out,
                            size_t *out_length, char *message, size_t message_capacity) {
    if (!pixels || !width || !height || !out || !out_length) return IMG_ERR_USAGE;
    if (stride < (size_t)width * (size_t)in_channels) return IMG_ERR_USAGE;
    struct png_encode_context context = {.message = message, .message_capacity = message_capacity};
    // Written through a pointer by the write callback, so its fields are in memory, not in
    // registers a longjmp would restore.
    struct png_output output = {0};
    output.capacity = (size_t)height * ((size_t)width * (size_t)out_channels + 1);
    output.capacity += output.capacity / 64 + 4096;
    output.data = malloc(output.capacity);
    if (!output.data) return IMG_ERR_OUT_OF_MEMORY;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &context, on_png_encode_error, on_png_encode_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        free(output.data);
        return IMG_ERR_OUT_OF_MEMORY;
    }
    if (setjmp(context.jump)) {
        png_destroy_write_struct(&png, &info);
        free(output.data);
        return IMG_ERR_CORRUPT;
    }
    png_set_write_fn(png, &output, png_write_to_output, png_flush_nothing);
    int interlace = interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE;
    if (palette) {
        int depth = palette->entries <= 2 ? 1 : palette->entries <= 4 ? 2 : palette->entries <= 16 ? 4 : 8;
        png_set_IHDR(png, info, width, height, depth, PNG_COLOR_TYPE_PALETTE, interlace, PNG_COMPRESSION_TYPE_DEFAULT,
                     PNG_FILTER_TYPE_DEFAULT);
        png_color colours[256];
        for (int entry = 0; entry < palette->entries; entry++) {
            colours[entry].red = palette->rgb[entry * 3];
            colours[entry].green = palette->rgb[entry * 3 + 1];
            colours[entry].blue = palette->rgb[entry * 3 + 2];
        }
        png_set_PLTE(png, info, colours, palette->entries);
        if (palette->transparent_index >= 0) {
            // tRNS lists alpha up to the last entry that needs it; the rest are opaque.
            png_byte alpha[256];
            memset(alpha, 255, sizeof alpha);
            alpha[palette->transparent_index] = 0;
            png_set_tRNS(png, info, alpha, palette->transparent_index + 1, NULL);
        }
    } else {
        png_set_IHDR(png, info, width, height, 8, out_channels == 4 ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB, interlace,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    }
    // The pixels are sRGB: said as libpng's simplified writer says it.
    png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, info);
    // One index a byte in, packed to the bit depth as each row is written.
    if (palette) png_set_packing(png);
    if (in_channels == 4 && out_channels == 3) png_set_filler(png, 0, PNG_FILLER_AFTER);
    // Adam7 writes every row once per pass; libpng keeps the rows each pass needs.
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++) {
        for (uint32_t y = 0; y < height; y++) png_write_row(png, pixels + (size_t)y * stride);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    *out = output.data;
    *out_length = output.length;
    return IMG_OK;
}

ImgStatus img_png_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t stride, int channels, int interlaced,
                         uint8_t **out, size_t *out_length, char *message, size_t message_capacity) {
    if (channels != 3 && channels != 4) return IMG_ERR_USAGE;
    return png_encode(pixels, width, height, stride, channels, channels, NULL, interlaced, out, out_length, message,
                      message_capacity);
}

ImgStatus img_png_encode_dropping_alpha(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int interlaced,
                                        uint8_t **out, size_t *out_length, char *message, size_t message_capacity) {
    return png_encode(rgba, width, height, stride, 4, 3, NULL, interlaced, out, out_length, message, message_capacity);
}

ImgStatus img_png_encode_indexed(const uint8_t *indices, uint32_t width, uint32_t height, const uint8_t *palette_rgb,
                                 int entries, int transparent_index, int interlaced, uint8_t **out, size_t *out_length,
                                 char *message, size_t message_capacity) {
    if (!palette_rgb || entries < 1 || entries > 256 || transparent_index >= entries) return IMG_ERR_USAGE;
    struct png_palette palette = {.rgb = palette_rgb, .entries = entries, .transparent_index = transparent_index};
    return png_encode(indices, width, height, width, 1, 1, &palette, interlaced, out, out_length, message, message_capacity);
}

ImgStatus img_zlib_compress(const uint8_t *bytes, size_t length, uint8_t **out, size_t *out_length) {
    if (!bytes || !out || !out_length || length > 0x7FFFFFFF) return IMG_ERR_USAGE;
    uLongf capacity = compressBound((uLong)length);
    uint8_t *data = malloc(capacity);
    if (!data) return IMG_ERR_OUT_OF_MEMORY;
    if (compress2(data, &capacity, bytes, (uLong)length, Z_BEST_COMPRESSION) != Z_OK) {
        free(data);
        return IMG_ERR_OUT_OF_MEMORY;
    }
    *out = data;
    *out_length = capacity;
    return IMG_OK;
}

uint32_t img_crc32(uint32_t crc, const uint8_t *bytes, size_t length) {
    return (uint32_t)crc32_z(crc, bytes, length);
}
