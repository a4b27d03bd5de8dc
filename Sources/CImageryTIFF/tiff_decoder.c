#include "CImageryTIFF.h"

// Compiled only with the package trait that links the library (see Package.swift).
#ifdef IMAGERY_TIFF

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

struct ImgTiffDecoder {
    const uint8_t *data;
    size_t length;
    size_t position;
    size_t max_single_allocation;
    TIFF *tiff;
    TIFFRGBAImage image;
    int image_started;
    int has_error;
    int warnings;
    int out_of_memory;
    int truncated;
    char message[512];
};

// MARK: Reading from memory

static tmsize_t memory_read(thandle_t handle, void *buffer, tmsize_t size) {
    ImgTiffDecoder *decoder = (ImgTiffDecoder *)handle;
    if (size <= 0 || decoder->position >= decoder->length) return 0;
    size_t available = decoder->length - decoder->position;
    size_t count = (size_t)size < available ? (size_t)size : available;
    memcpy(buffer, decoder->data + decoder->position, count);
    decoder->position += count;
    return (tmsize_t)count;
}

static tmsize_t memory_no_write(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle; (void)buffer; (void)size;
    return 0;
}

static toff_t memory_seek(thandle_t handle, toff_t offset, int whence) {
    ImgTiffDecoder *decoder = (ImgTiffDecoder *)handle;
    uint64_t base = whence == SEEK_CUR ? decoder->position : whence == SEEK_END ? decoder->length : 0;
    uint64_t target = base + offset;
    // libtiff passes negative offsets as huge unsigned ones; anything past the data is refused.
    if (target < base || target > decoder->length) return (toff_t)-1;
    decoder->position = (size_t)target;
    return target;
}

static int memory_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t memory_size(thandle_t handle) {
    return ((ImgTiffDecoder *)handle)->length;
}

// libtiff reads strips straight from a "mapped" file and never writes to it (it maps files
// read-only itself), so the caller's buffer serves without a copy.
static int memory_map(thandle_t handle, void **base, toff_t *size) {
    ImgTiffDecoder *decoder = (ImgTiffDecoder *)handle;
    *base = (void *)decoder->data;
    *size = decoder->length;
    return 1;
}

static void memory_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle; (void)base; (void)size;
}

// MARK: Reports

static void note(ImgTiffDecoder *decoder, const char *module, const char *format, va_list arguments) {
    char text[400];
    vsnprintf(text, sizeof text, format, arguments);
    snprintf(decoder->message, sizeof decoder->message, "%s%s%s", module ? module : "", module ? ": " : "", text);
}

static int on_error(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    ImgTiffDecoder *decoder = (ImgTiffDecoder *)user_data;
    if (strstr(format, "limit defined in open options") != NULL) decoder->out_of_memory = 1;
    if (strstr(format, "Read error") != NULL || strstr(format, "Seek error") != NULL) decoder->truncated = 1;
    if (!decoder->has_error) {
        note(decoder, module, format, arguments);
        decoder->has_error = 1;
    }
    return 1;   // handled: libtiff's global handler (stderr) is not called
}

static int on_warning(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff;
    ImgTiffDecoder *decoder = (ImgTiffDecoder *)user_data;
    if (!decoder->has_error && decoder->warnings == 0) note(decoder, module, format, arguments);
    decoder->warnings += 1;
    return 1;
}

static ImgTiffStatus failure(const ImgTiffDecoder *decoder, ImgTiffStatus otherwise) {
    if (decoder->out_of_memory) return IMG_TIFF_OUT_OF_MEMORY;
    if (decoder->truncated) return IMG_TIFF_TRUNCATED;
    return otherwise;
}

// MARK: Decoding

ImgTiffDecoder *img_tiff_decoder_create(const uint8_t *data, size_t length, size_t max_single_allocation) {
    if (data == NULL || length == 0) return NULL;
    ImgTiffDecoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->data = data;
    decoder->length = length;
    decoder->max_single_allocation = max_single_allocation;
    return decoder;
}

void img_tiff_decoder_destroy(ImgTiffDecoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->image_started) TIFFRGBAImageEnd(&decoder->image);
    if (decoder->tiff != NULL) TIFFClose(decoder->tiff);
    free(decoder);
}

ImgTiffStatus img_tiff_read_header(ImgTiffDecoder *decoder, ImgTiffInfo *info) {
    if (decoder == NULL || info == NULL || decoder->tiff != NULL) return IMG_TIFF_USAGE;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) return IMG_TIFF_OUT_OF_MEMORY;
    TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)decoder->max_single_allocation);
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_error, decoder);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_warning, decoder);
    // Opening reads the first directory only: the pages after it are never walked.
    decoder->tiff = TIFFClientOpenExt("memory", "r", (thandle_t)decoder, memory_read, memory_no_write, memory_seek,
                                      memory_close, memory_size, memory_map, memory_unmap, options);
    TIFFOpenOptionsFree(options);
    if (decoder->tiff == NULL) {
        if (!decoder->has_error) snprintf(decoder->message, sizeof decoder->message, "not a TIFF libtiff can open");
        return failure(decoder, IMG_TIFF_CORRUPT);
    }
    TIFF *tiff = decoder->tiff;
    memset(info, 0, sizeof *info);
    uint16_t value = 0;
    TIFFGetField(tiff, TIFFTAG_IMAGEWIDTH, &info->width);
    TIFFGetField(tiff, TIFFTAG_IMAGELENGTH, &info->height);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_SAMPLESPERPIXEL, &info->samples_per_pixel);
    TIFFGetFieldDefaulted(tiff, TIFFTAG_BITSPERSAMPLE, &info->bits_per_sample);
    if (TIFFGetField(tiff, TIFFTAG_PHOTOMETRIC, &value)) info->photometric = value;
    TIFFGetFieldDefaulted(tiff, TIFFTAG_COMPRESSION, &info->compression);
    info->orientation = 1;
    if (TIFFGetField(tiff, TIFFTAG_ORIENTATION, &value) && value >= 1 && value <= 8) info->orientation = value;
    uint16_t extra_count = 0;
    uint16_t *extra = NULL;
    if (TIFFGetField(tiff, TIFFTAG_EXTRASAMPLES, &extra_count, &extra) && extra_count > 0 && extra != NULL) {
        if (extra[0] == EXTRASAMPLE_ASSOCALPHA) info->alpha = 1;
        else if (extra[0] == EXTRASAMPLE_UNASSALPHA) info->alpha = 2;
    }
    info->tiled = TIFFIsTiled(tiff);
    uint32_t rows = 0;
    if (info->tiled) TIFFGetField(tiff, TIFFTAG_TILELENGTH, &rows);
    else TIFFGetFieldDefaulted(tiff, TIFFTAG_ROWSPERSTRIP, &rows);
    info->rows_per_block = rows == 0 || rows > info->height ? info->height : rows;
    uint32_t icc_length = 0;
    void *icc = NULL;
    if (TIFFGetField(tiff, TIFFTAG_ICCPROFILE, &icc_length, &icc) && icc != NULL && icc_length > 0) {
        info->icc = icc;
        info->icc_length = icc_length;
    }
    return IMG_TIFF_OK;
}

ImgTiffStatus img_tiff_start(ImgTiffDecoder *decoder, int strict) {
    if (decoder == NULL || decoder->tiff == NULL || decoder->image_started) return IMG_TIFF_USAGE;
    char reason[1024] = "";
    if (!TIFFRGBAImageOK(decoder->tiff, reason)) {
        snprintf(decoder->message, sizeof decoder->message, "%.500s", reason);
        return failure(decoder, IMG_TIFF_UNSUPPORTED);
    }
    if (!TIFFRGBAImageBegin(&decoder->image, decoder->tiff, strict, reason)) {
        if (!decoder->has_error) snprintf(decoder->message, sizeof decoder->message, "%.500s", reason);
        return failure(decoder, IMG_TIFF_UNSUPPORTED);
    }
    decoder->image_started = 1;
    // The stored order: the orientation tag is applied with the other EXIF orientations,
    // after any resize, and libtiff would only flip (never transpose) anyway.
    decoder->image.req_orientation = decoder->image.orientation;
    return IMG_TIFF_OK;
}

ImgTiffStatus img_tiff_read_rows(ImgTiffDecoder *decoder, uint8_t *rows, uint32_t first_row, uint32_t count) {
    if (decoder == NULL || rows == NULL || !decoder->image_started) return IMG_TIFF_USAGE;
    TIFFRGBAImage *image = &decoder->image;
    if (count == 0 || first_row >= image->height || count > image->height - first_row) return IMG_TIFF_USAGE;
    image->row_offset = (int)first_row;
    image->col_offset = 0;
    // Packed ABGR words are R, G, B, A in memory on a little-endian machine.
    int ok = TIFFRGBAImageGet(image, (uint32_t *)(void *)rows, image->width, count);
    if (!ok || (image->stoponerr && decoder->has_error)) {
        if (!decoder->has_error) snprintf(decoder->message, sizeof decoder->message, "libtiff could not read rows %u to %u", first_row, first_row + count - 1);
        return failure(decoder, IMG_TIFF_CORRUPT);
    }
    return IMG_TIFF_OK;
}

int img_tiff_alpha_mode(const ImgTiffDecoder *decoder) {
    if (decoder == NULL || !decoder->image_started || decoder->image.alpha == 0) return 0;
    uint16_t photometric = decoder->image.photometric;
    int grey = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
    return grey && decoder->image.alpha == EXTRASAMPLE_UNASSALPHA ? 2 : 1;
}

const char *img_tiff_message(const ImgTiffDecoder *decoder) {
    return decoder == NULL ? "" : decoder->message;
}

int img_tiff_warning_count(const ImgTiffDecoder *decoder) {
    return decoder == NULL ? 0 : decoder->warnings;
}

void img_tiff_free(void *pointer) {
    free(pointer);
}

#endif
