#include "CImageryTIFF.h"

// Compiled only with the package trait that links the library (see Package.swift).
#ifdef IMAGERY_TIFF

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

typedef struct {
    uint8_t *data;
    size_t length;
    size_t capacity;
    size_t position;
    int failed;
    char *message;
    size_t message_capacity;
} OutputBuffer;

static tmsize_t output_write(thandle_t handle, void *buffer, tmsize_t size) {
    OutputBuffer *output = (OutputBuffer *)handle;
    if (size < 0 || output->failed) return -1;
    size_t end = output->position + (size_t)size;
    if (end < output->position) { output->failed = 1; return -1; }
    if (end > output->capacity) {
        size_t capacity = output->capacity < 65536 ? 65536 : output->capacity;
        while (capacity < end) capacity *= 2;
        uint8_t *grown = realloc(output->data, capacity);
        if (grown == NULL) { output->failed = 1; return -1; }
        output->data = grown;
        output->capacity = capacity;
    }
    // A seek past the end leaves a gap that must read as zeros.
    if (output->position > output->length) memset(output->data + output->length, 0, output->position - output->length);
    memcpy(output->data + output->position, buffer, (size_t)size);
    output->position = end;
    if (end > output->length) output->length = end;
    return size;
}

static tmsize_t output_no_read(thandle_t handle, void *buffer, tmsize_t size) {
    (void)handle; (void)buffer; (void)size;
    return 0;
}

static toff_t output_seek(thandle_t handle, toff_t offset, int whence) {
    OutputBuffer *output = (OutputBuffer *)handle;
    uint64_t base = whence == SEEK_CUR ? output->position : whence == SEEK_END ? output->length : 0;
    // A negative offset arrives as a huge unsigned one and wraps; past 4 GiB is refused either way.
    uint64_t target = base + offset;
    if (target > ((uint64_t)1 << 32)) return (toff_t)-1;
    output->position = (size_t)target;
    return target;
}

static int output_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t output_size(thandle_t handle) {
    return ((OutputBuffer *)handle)->length;
}

static int output_no_map(thandle_t handle, void **base, toff_t *size) {
    (void)handle; (void)base; (void)size;
    return 0;
}

static void output_no_unmap(thandle_t handle, void *base, toff_t size) {
    (void)handle; (void)base; (void)size;
}

static int on_encoder_error(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff; (void)module;
    OutputBuffer *output = (OutputBuffer *)user_data;
    if (output->message != NULL && output->message_capacity > 0 && output->message[0] == 0) {
        vsnprintf(output->message, output->message_capacity, format, arguments);
    }
    output->failed = 1;
    return 1;
}

static int on_encoder_warning(TIFF *tiff, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tiff; (void)user_data; (void)module; (void)format; (void)arguments;
    return 1;
}

ImgTiffStatus img_tiff_encode(const uint8_t *pixels, uint32_t width, uint32_t height, size_t bytes_per_row, int channels,
                              ImgTiffCompression compression, uint8_t **out, size_t *out_length, char *message, size_t message_capacity) {
    if (pixels == NULL || out == NULL || out_length == NULL || width == 0 || height == 0 || (channels != 3 && channels != 4)
        || bytes_per_row < (size_t)width * 4) return IMG_TIFF_USAGE;
    if (message != NULL && message_capacity > 0) message[0] = 0;
    OutputBuffer output = { .message = message, .message_capacity = message_capacity };
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) return IMG_TIFF_OUT_OF_MEMORY;
    TIFFOpenOptionsSetErrorHandlerExtR(options, on_encoder_error, &output);
    TIFFOpenOptionsSetWarningHandlerExtR(options, on_encoder_warning, &output);
    TIFF *tiff = TIFFClientOpenExt("memory", "w", (thandle_t)&output, output_no_read, output_write, output_seek,
                                   output_close, output_size, output_no_map, output_no_unmap, options);
    TIFFOpenOptionsFree(options);
    if (tiff == NULL) {
        free(output.data);
        return IMG_TIFF_CORRUPT;
    }
    TIFFSetField(tiff, TIFFTAG_IMAGEWIDTH, width);
    TIFFSetField(tiff, TIFFTAG_IMAGELENGTH, height);
    TIFFSetField(tiff, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)channels);
    TIFFSetField(tiff, TIFFTAG_BITSPERSAMPLE, (uint16_t)8);
    TIFFSetField(tiff, TIFFTAG_PHOTOMETRIC, (uint16_t)PHOTOMETRIC_RGB);
    TIFFSetField(tiff, TIFFTAG_PLANARCONFIG, (uint16_t)PLANARCONFIG_CONTIG);
    TIFFSetField(tiff, TIFFTAG_ORIENTATION, (uint16_t)ORIENTATION_TOPLEFT);
    TIFFSetField(tiff, TIFFTAG_COMPRESSION, (uint16_t)compression);
    if (compression == IMG_TIFF_COMPRESSION_LZW || compression == IMG_TIFF_COMPRESSION_DEFLATE) {
        TIFFSetField(tiff, TIFFTAG_PREDICTOR, (uint16_t)PREDICTOR_HORIZONTAL);
    }
    if (channels == 4) {
        uint16_t extra = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(tiff, TIFFTAG_EXTRASAMPLES, (uint16_t)1, &extra);
    }
    TIFFSetField(tiff, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tiff, 0));

    // The predictor differences a row in place, so each row goes through a scratch copy.
    uint8_t *row = malloc((size_t)width * (size_t)channels);
    int no_memory = row == NULL;
    int ok = !no_memory;
    for (uint32_t y = 0; ok && y < height; y++) {
        const uint8_t *source = pixels + (size_t)y * bytes_per_row;
        if (channels == 4) {
            memcpy(row, source, (size_t)width * 4);
        } else {
            for (uint32_t x = 0; x < width; x++) {
                row[x * 3] = source[x * 4];
                row[x * 3 + 1] = source[x * 4 + 1];
                row[x * 3 + 2] = source[x * 4 + 2];
            }
        }
        ok = TIFFWriteScanline(tiff, row, y, 0) == 1 && !output.failed;
    }
    free(row);
    if (ok) ok = TIFFWriteDirectory(tiff) == 1 && !output.failed;
    TIFFClose(tiff);
    if (!ok || output.failed) {
        free(output.data);
        return no_memory ? IMG_TIFF_OUT_OF_MEMORY : IMG_TIFF_CORRUPT;
    }
    *out = output.data;
    *out_length = output.length;
    return IMG_TIFF_OK;
}

#endif
