#include "CImageryCodecs.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

struct ImgJpegDecoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr err;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    ImgStatus status;
    int strict;
    int max_scans;
    int warnings;
    int created;
    int started;
    uint8_t *icc;
    char message[JMSG_LENGTH_MAX + 64];
};

static ImgJpegDecoder *decoder_of(j_common_ptr cinfo) { return (ImgJpegDecoder *)cinfo->client_data; }

static ImgStatus classify_error(int code) {
    switch (code) {
    case JERR_INPUT_EOF: return IMG_ERR_TRUNCATED;
    case JERR_NO_BACKING_STORE:
    case JERR_OUT_OF_MEMORY: return IMG_ERR_OUT_OF_MEMORY;
    default: return IMG_ERR_CORRUPT;
    }
}

static void on_error_exit(j_common_ptr cinfo) {
    ImgJpegDecoder *decoder = decoder_of(cinfo);
    cinfo->err->format_message(cinfo, decoder->message);
    decoder->status = classify_error(cinfo->err->msg_code);
    longjmp(decoder->jump, 1);
}

// Warnings that mean the pixels are not what the file meant to hold.
static int warning_damages_pixels(j_common_ptr cinfo) {
    switch (cinfo->err->msg_code) {
    case JWRN_JPEG_EOF:
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL:
    case JWRN_BOGUS_PROGRESSION:
    case JWRN_TOO_MUCH_DATA:
        return 1;
    case JWRN_EXTRANEOUS_DATA:
        // Padding before EOI is common in camera files and harmless.
        return cinfo->err->msg_parm.i[1] != 0xD9;
    default:
        return 0;
    }
}

static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return; // trace messages
    ImgJpegDecoder *decoder = decoder_of(cinfo);
    if (!warning_damages_pixels(cinfo)) return;
    decoder->warnings += 1;
    if (decoder->warnings == 1) cinfo->err->format_message(cinfo, decoder->message);
    if (decoder->strict) {
        cinfo->err->format_message(cinfo, decoder->message);
        decoder->status = cinfo->err->msg_code == JWRN_JPEG_EOF ? IMG_ERR_TRUNCATED : IMG_ERR_CORRUPT;
        longjmp(decoder->jump, 1);
    }
}

static void on_progress(j_common_ptr cinfo) {
    ImgJpegDecoder *decoder = decoder_of(cinfo);
    struct jpeg_decompress_struct *d = (struct jpeg_decompress_struct *)cinfo;
    if (decoder->max_scans > 0 && d->input_scan_number > decoder->max_scans) {
        snprintf(decoder->message, sizeof decoder->message,
                 "progressive JPEG has more than %d scans", decoder->max_scans);
        decoder->status = IMG_ERR_TOO_MANY_SCANS;
        longjmp(decoder->jump, 1);
    }
}

ImgJpegDecoder *img_jpeg_decoder_create(int strict, int max_scans, long max_memory) {
    ImgJpegDecoder *decoder = calloc(1, sizeof *decoder);
    if (!decoder) return NULL;
    decoder->strict = strict;
    decoder->max_scans = max_scans;
    decoder->cinfo.err = jpeg_std_error(&decoder->err);
    decoder->err.error_exit = on_error_exit;
    decoder->err.emit_message = on_emit_message;
    decoder->cinfo.client_data = decoder;
    if (setjmp(decoder->jump)) {
        free(decoder);
        return NULL;
    }
    jpeg_CreateDecompress(&decoder->cinfo, JPEG_LIB_VERSION, sizeof decoder->cinfo);
    decoder->created = 1;
    decoder->cinfo.mem->max_memory_to_use = max_memory;
    decoder->progress.progress_monitor = on_progress;
    decoder->cinfo.progress = &decoder->progress;
    return decoder;
}

void img_jpeg_decoder_destroy(ImgJpegDecoder *decoder) {
    if (!decoder) return;
    if (decoder->created) jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder->icc);
    free(decoder);
}

static ImgJpegColorSpace map_color_space(J_COLOR_SPACE space) {
    switch (space) {
    case JCS_GRAYSCALE: return IMG_JPEG_GRAY;
    case JCS_RGB: return IMG_JPEG_RGB;
    case JCS_YCbCr: return IMG_JPEG_YCBCR;
    case JCS_CMYK: return IMG_JPEG_CMYK;
    case JCS_YCCK: return IMG_JPEG_YCCK;
    default: return IMG_JPEG_UNKNOWN;
    }
}

ImgStatus img_jpeg_read_header(ImgJpegDecoder *decoder, const uint8_t *data, size_t length, ImgJpegInfo *info) {
    if (!decoder || !data || !info) return IMG_ERR_USAGE;
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->jump)) return decoder->status;
    jpeg_mem_src(cinfo, data, (unsigned long)length);
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(cinfo, TRUE);

    memset(info, 0, sizeof *info);
    info->width = (int)cinfo->image_width;
    info->height = (int)cinfo->image_height;
    info->components = cinfo->num_components;
    info->color_space = map_color_space(cinfo->jpeg_color_space);
    info->progressive = cinfo->progressive_mode ? 1 : 0;
    info->adobe_marker = cinfo->saw_Adobe_marker ? 1 : 0;
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length > 6 &&
            memcmp(marker->data, "Exif\0\0", 6) == 0 && !info->exif) {
            info->exif = marker->data + 6;
            info->exif_length = marker->data_length - 6;
        }
    }
    JOCTET *icc = NULL;
    unsigned int icc_length = 0;
    if (jpeg_read_icc_profile(cinfo, &icc, &icc_length)) {
        decoder->icc = icc;
        info->icc = icc;
        info->icc_length = icc_length;
    }
    return IMG_OK;
}

ImgStatus img_jpeg_start(ImgJpegDecoder *decoder, int scale_num, int fast, int *out_width, int *out_height) {
    if (!decoder || scale_num < 1 || scale_num > 8 || decoder->started) return IMG_ERR_USAGE;
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->jump)) return decoder->status;
    cinfo->scale_num = (unsigned)scale_num;
    cinfo->scale_denom = 8;
    if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) {
        cinfo->out_color_space = JCS_CMYK;
    } else {
        cinfo->out_color_space = JCS_EXT_RGBA;
    }
    if (fast) {
        cinfo->dct_method = JDCT_IFAST;
        cinfo->do_fancy_upsampling = FALSE;
    }
    jpeg_start_decompress(cinfo);
    decoder->started = 1;
    if (cinfo->output_components != 4) {
        snprintf(decoder->message, sizeof decoder->message,
                 "unexpected output components: %d", cinfo->output_components);
        return IMG_ERR_CORRUPT;
    }
    *out_width = (int)cinfo->output_width;
    *out_height = (int)cinfo->output_height;
    return IMG_OK;
}

ImgStatus img_jpeg_read_rows(ImgJpegDecoder *decoder, uint8_t *buffer, size_t stride, int max_rows, int *rows_read) {
    if (!decoder || !decoder->started || !buffer || !rows_read) return IMG_ERR_USAGE;
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    *rows_read = 0;
    if (setjmp(decoder->jump)) return decoder->status;
    while (*rows_read < max_rows && cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW rows[16];
        int wanted = max_rows - *rows_read;
        if (wanted > 16) wanted = 16;
        for (int i = 0; i < wanted; i++) rows[i] = buffer + (size_t)(*rows_read + i) * stride;
        JDIMENSION got = jpeg_read_scanlines(cinfo, rows, (JDIMENSION)wanted);
        if (got == 0) break;
        *rows_read += (int)got;
    }
    return IMG_OK;
}

ImgStatus img_jpeg_finish(ImgJpegDecoder *decoder) {
    if (!decoder || !decoder->started) return IMG_ERR_USAGE;
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->jump)) return decoder->status;
    if (cinfo->output_scanline < cinfo->output_height) {
        jpeg_abort_decompress(cinfo);
    } else {
        jpeg_finish_decompress(cinfo);
    }
    decoder->started = 0;
    return IMG_OK;
}

const char *img_jpeg_message(const ImgJpegDecoder *decoder) { return decoder ? decoder->message : ""; }
int img_jpeg_warning_count(const ImgJpegDecoder *decoder) { return decoder ? decoder->warnings : 0; }

// Encoding has its own small context so that its jump point lives in this frame.
struct encode_context {
    struct jpeg_error_mgr err;
    jmp_buf jump;
    char *message;
    size_t message_capacity;
    // Kept here, not in locals, so their values survive a longjmp.
    unsigned char *buffer;
    unsigned long length;
};

static void on_encode_error(j_common_ptr cinfo) {
    struct encode_context *context = (struct encode_context *)cinfo->client_data;
    char buffer[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, buffer);
    if (context->message && context->message_capacity) snprintf(context->message, context->message_capacity, "%s", buffer);
    longjmp(context->jump, 1);
}

static void on_encode_message(j_common_ptr cinfo, int level) { (void)cinfo; (void)level; }

ImgStatus img_jpeg_encode(const uint8_t *rgba, int width, int height, size_t stride, int quality, int progressive,
                          uint8_t **out, size_t *out_length, char *message, size_t message_capacity) {
    if (!rgba || width <= 0 || height <= 0 || !out || !out_length) return IMG_ERR_USAGE;
    struct jpeg_compress_struct cinfo;
    struct encode_context context = {.message = message, .message_capacity = message_capacity};
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&context.err);
    context.err.error_exit = on_encode_error;
    context.err.emit_message = on_encode_message;
    cinfo.client_data = &context;
    if (setjmp(context.jump)) {
        jpeg_destroy_compress(&cinfo);
        free(context.buffer);
        return IMG_ERR_CORRUPT;
    }
    jpeg_CreateCompress(&cinfo, JPEG_LIB_VERSION, sizeof cinfo);
    jpeg_mem_dest(&cinfo, &context.buffer, &context.length);
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = 4;
    cinfo.in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    cinfo.optimize_coding = TRUE;
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW row = (JSAMPROW)(rgba + (size_t)cinfo.next_scanline * stride);
        jpeg_write_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = context.buffer;
    *out_length = context.length;
    return IMG_OK;
}

void img_free(void *pointer) { free(pointer); }
