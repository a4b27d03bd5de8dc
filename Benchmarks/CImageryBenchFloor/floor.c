// Reference decodes for the benchmark: the codec floor that thumbnailing is measured against.
#include "CImageryBenchFloor.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <png.h>

struct floor_error {
    struct jpeg_error_mgr err;
    jmp_buf jump;
};

static void floor_error_exit(j_common_ptr cinfo) { longjmp(((struct floor_error *)cinfo->err)->jump, 1); }
static void floor_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

int img_bench_jpeg_floor_decode(const uint8_t *data, size_t length, int scale_num, int *out_width, int *out_height) {
    struct jpeg_decompress_struct cinfo;
    struct floor_error error;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&error.err);
    error.err.error_exit = floor_error_exit;
    error.err.emit_message = floor_message;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    jpeg_CreateDecompress(&cinfo, JPEG_LIB_VERSION, sizeof cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.scale_num = (unsigned)scale_num;
    cinfo.scale_denom = 8;
    cinfo.out_color_space = JCS_RGB;
    jpeg_start_decompress(&cinfo);
    JSAMPARRAY rows = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE,
                                      cinfo.output_width * cinfo.output_components, 1);
    while (cinfo.output_scanline < cinfo.output_height) jpeg_read_scanlines(&cinfo, rows, 1);
    *out_width = (int)cinfo.output_width;
    *out_height = (int)cinfo.output_height;
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

int img_bench_png_floor_decode(const uint8_t *data, size_t length, uint32_t *out_width, uint32_t *out_height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, length)) return 1;
    image.format = PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA;
    void *buffer = malloc(PNG_IMAGE_SIZE(image));
    if (!buffer) { png_image_free(&image); return 2; }
    int ok = png_image_finish_read(&image, NULL, buffer, 0, NULL);
    free(buffer);
    *out_width = image.width;
    *out_height = image.height;
    return ok ? 0 : 1;
}
