// The codec floor for the thumbnail benchmark: plain libjpeg-turbo and libpng decodes with
// their defaults, the work no thumbnailer can avoid. Not part of any product.
#ifndef CIMAGERYBENCHFLOOR_H
#define CIMAGERYBENCHFLOOR_H

#include <stddef.h>
#include <stdint.h>

/// What `djpeg -scale N/8` does (libjpeg defaults, RGB output), minus writing the output.
/// Returns 0 on success.
int img_bench_jpeg_floor_decode(const uint8_t *data, size_t length, int scale_num, int *out_width, int *out_height);
/// libpng's simplified API decoding the whole image to 8-bit RGBA. Returns 0 on success.
int img_bench_png_floor_decode(const uint8_t *data, size_t length, uint32_t *out_width, uint32_t *out_height);

#endif
