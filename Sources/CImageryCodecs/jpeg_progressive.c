// Incremental JPEG decoding for progressive previews: libjpeg's buffered-image mode over a
// suspending source. The source never has more than the caller fed, so fill_input_buffer
// returns FALSE: libjpeg backs up to its last safe point (the start of the current marker
// or MCU), leaves next_input_byte there and returns JPEG_SUSPENDED. Every byte from
// next_input_byte on is kept and presented again, followed by the next feed.
#include "CImageryCodecs.h"

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

// libjpeg leaves at most one marker segment (< 64 KiB) or one MCU unconsumed. A
// backlog far beyond that means it cannot advance (e.g. a run of 0xFF fill bytes
// inside an MCU), and each feed would rescan all of it, so it is refused instead.
#define IMG_PROGRESSIVE_MAX_BACKLOG ((size_t)1 << 20)

struct ImgJpegProgressive {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr err;
    struct jpeg_source_mgr src;
    jmp_buf jump;
    // Sticky: once a call has failed, libjpeg's state is not trusted again.
    ImgStatus status;
    int strict, max_scans, warnings;
    long max_pixels;
    int created, header_ready, started, ended, finished, completed;
    uint8_t *input;
    size_t input_capacity;
    // What skip_input_data was asked to skip beyond the bytes we had.
    size_t skip;
    uint8_t *icc;
    unsigned int icc_length;
    const uint8_t *exif;
    size_t exif_length;
    char message[JMSG_LENGTH_MAX + 64];
};

static ImgJpegProgressive *progressive_of(j_common_ptr cinfo) { return (ImgJpegProgressive *)cinfo->client_data; }

static ImgStatus fail(ImgJpegProgressive *p, ImgStatus status, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(p->message, sizeof p->message, format, arguments);
    va_end(arguments);
    p->status = status;
    return status;
}

static void on_error_exit(j_common_ptr cinfo) {
    ImgJpegProgressive *p = progressive_of(cinfo);
    cinfo->err->format_message(cinfo, p->message);
    int code = cinfo->err->msg_code;
    p->status = code == JERR_OUT_OF_MEMORY || code == JERR_NO_BACKING_STORE ? IMG_ERR_OUT_OF_MEMORY : IMG_ERR_CORRUPT;
    longjmp(p->jump, 1);
}

// The same classification as jpeg_shim.c: warnings that mean the pixels are not what the file meant.
static int warning_damages_pixels(j_common_ptr cinfo) {
    switch (cinfo->err->msg_code) {
    case JWRN_JPEG_EOF: case JWRN_HIT_MARKER: case JWRN_HUFF_BAD_CODE: case JWRN_MUST_RESYNC:
    case JWRN_NOT_SEQUENTIAL: case JWRN_BOGUS_PROGRESSION: case JWRN_TOO_MUCH_DATA: return 1;
    case JWRN_EXTRANEOUS_DATA: return cinfo->err->msg_parm.i[1] != 0xD9; // padding before EOI is harmless
    default: return 0;
    }
}

static void on_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0 || !warning_damages_pixels(cinfo)) return;
    ImgJpegProgressive *p = progressive_of(cinfo);
    if (p->warnings == 0 || p->strict) cinfo->err->format_message(cinfo, p->message);
    if (p->warnings < INT_MAX) p->warnings++;
    if (p->strict) {
        p->status = cinfo->err->msg_code == JWRN_JPEG_EOF ? IMG_ERR_TRUNCATED : IMG_ERR_CORRUPT;
        longjmp(p->jump, 1);
    }
}

static void source_nothing(j_decompress_ptr cinfo) { (void)cinfo; }
static const JOCTET fake_eoi[2] = {0xFF, JPEG_EOI};

static boolean source_fill(j_decompress_ptr cinfo) {
    ImgJpegProgressive *p = progressive_of((j_common_ptr)cinfo);
    // More may come: suspend. libjpeg has not synced its position into
    // next_input_byte/bytes_in_buffer yet, so they must be left alone.
    if (!p->ended) return FALSE;
    // No more will come: as libjpeg's own sources do at end of file, warn and insert an
    // EOI, as often as asked. There is no suspension, so no backing up into `input`.
    WARNMS(cinfo, JWRN_JPEG_EOF);
    p->src.next_input_byte = fake_eoi;
    p->src.bytes_in_buffer = sizeof fake_eoi;
    return TRUE;
}

// libjpeg syncs before skipping and never backs up over a skip, so skipped bytes
// are gone for good; the part not yet received is dropped from later feeds.
static void source_skip(j_decompress_ptr cinfo, long count) {
    ImgJpegProgressive *p = progressive_of((j_common_ptr)cinfo);
    size_t n = count > 0 ? (size_t)count : 0;
    if (n > p->src.bytes_in_buffer) {
        p->skip += n - p->src.bytes_in_buffer;
        n = p->src.bytes_in_buffer;
    }
    if (n == 0) return;
    p->src.next_input_byte += n;
    p->src.bytes_in_buffer -= n;
}

ImgJpegProgressive *img_jpeg_progressive_create(int strict, int max_scans, long max_memory, long max_pixels) {
    ImgJpegProgressive *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->strict = strict;
    p->max_scans = max_scans;
    p->max_pixels = max_pixels;
    p->cinfo.err = jpeg_std_error(&p->err);
    p->err.error_exit = on_error_exit;
    p->err.emit_message = on_emit_message;
    p->cinfo.client_data = p;
    if (setjmp(p->jump)) {
        if (p->created) jpeg_destroy_decompress(&p->cinfo);
        free(p);
        return NULL;
    }
    jpeg_CreateDecompress(&p->cinfo, JPEG_LIB_VERSION, sizeof p->cinfo);
    p->created = 1;
    p->cinfo.mem->max_memory_to_use = max_memory;
    p->src.init_source = source_nothing; // called inside the first jpeg_read_header, after the first feed: must not reset
    p->src.fill_input_buffer = source_fill;
    p->src.skip_input_data = source_skip;
    p->src.resync_to_restart = jpeg_resync_to_restart;
    p->src.term_source = source_nothing;
    p->cinfo.src = &p->src;
    jpeg_save_markers(&p->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&p->cinfo, JPEG_APP0 + 2, 0xFFFF);
    return p;
}

void img_jpeg_progressive_destroy(ImgJpegProgressive *p) {
    if (!p) return;
    if (p->created) jpeg_destroy_decompress(&p->cinfo);
    free(p->input);
    free(p->icc);
    free(p);
}

// Slides the unconsumed bytes to the front of the buffer and appends `data` after them.
static int append(ImgJpegProgressive *p, const uint8_t *data, size_t length) {
    size_t backlog = p->src.bytes_in_buffer;
    if (backlog && p->src.next_input_byte != p->input) memmove(p->input, p->src.next_input_byte, backlog);
    p->src.next_input_byte = p->input; // consistent again even if growing fails below
    if (length > p->input_capacity - backlog) {
        if (length > SIZE_MAX / 4 - backlog) return 0;
        size_t capacity = 2 * (backlog + length) > 65536 ? 2 * (backlog + length) : 65536;
        uint8_t *grown = realloc(p->input, capacity);
        if (!grown) return 0;
        p->input = grown;
        p->input_capacity = capacity;
        p->src.next_input_byte = grown;
    }
    if (length) memcpy(p->input + backlog, data, length);
    p->src.bytes_in_buffer = backlog + length;
    return 1;
}

static void read_metadata(ImgJpegProgressive *p) {
    for (jpeg_saved_marker_ptr marker = p->cinfo.marker_list; marker; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length > 6 &&
            memcmp(marker->data, "Exif\0\0", 6) == 0 && !p->exif) {
            p->exif = marker->data + 6;
            p->exif_length = marker->data_length - 6;
        }
    }
    JOCTET *icc = NULL;
    if (jpeg_read_icc_profile(&p->cinfo, &icc, &p->icc_length)) p->icc = icc;
}

// Reads as far as the buffered bytes allow. Shared by feed, end and start; each returns its status.
static ImgStatus consume(ImgJpegProgressive *p) {
    struct jpeg_decompress_struct *cinfo = &p->cinfo;
    if (setjmp(p->jump)) return p->status;
    if (!p->header_ready) {
        if (jpeg_read_header(cinfo, TRUE) == JPEG_SUSPENDED) goto suspended;
        p->header_ready = 1;
        read_metadata(p);
        unsigned long long pixels = (unsigned long long)cinfo->image_width * cinfo->image_height;
        if (p->max_pixels > 0 && pixels > (unsigned long long)p->max_pixels)
            return fail(p, IMG_ERR_OUT_OF_MEMORY, "image is %ux%u, above the limit of %ld pixels",
                        cinfo->image_width, cinfo->image_height, p->max_pixels);
    }
    // libjpeg will not read past the first SOS before jpeg_start_decompress has fixed the output size.
    if (!p->started) return IMG_OK;
    while (!p->finished) {
        int result = jpeg_consume_input(cinfo);
        if (result == JPEG_SUSPENDED) break;
        p->finished = result == JPEG_REACHED_EOI;
        // A scan is renderable only once input has read the marker after it (the next
        // SOS, or EOI). Before that, jpeg_finish_output (and block smoothing of the last
        // rows of a DC scan) would go looking for that marker and could suspend.
        p->completed = p->finished ? cinfo->input_scan_number : cinfo->input_scan_number - 1;
        // libjpeg calls the progress monitor only when it drives the input itself, so
        // the limit is checked here, at the SOS, before any of the scan's data is read.
        if (result == JPEG_REACHED_SOS && p->max_scans > 0 && cinfo->input_scan_number > p->max_scans)
            return fail(p, IMG_ERR_TOO_MANY_SCANS, "progressive JPEG has more than %d scans", p->max_scans);
    }
    if (p->finished) {
        free(p->input); // libjpeg reads nothing after EOI
        p->input = NULL;
        p->input_capacity = p->src.bytes_in_buffer = 0;
        p->src.next_input_byte = NULL;
        return IMG_OK;
    }
suspended:
    // Between the header and start the first scan's bytes wait here by design.
    if ((p->started || !p->header_ready) && p->src.bytes_in_buffer > IMG_PROGRESSIVE_MAX_BACKLOG)
        return fail(p, IMG_ERR_CORRUPT, "libjpeg cannot advance through %zu buffered bytes", p->src.bytes_in_buffer);
    return IMG_OK;
}

ImgStatus img_jpeg_progressive_feed(ImgJpegProgressive *p, const uint8_t *data, size_t length) {
    if (!p || (!data && length)) return IMG_ERR_USAGE;
    if (p->status != IMG_OK || p->finished) return p->status;
    if (p->ended) return IMG_ERR_USAGE;
    size_t skipped = p->skip < length ? p->skip : length;
    p->skip -= skipped;
    if (skipped) data += skipped;
    if (!append(p, data, length - skipped)) return fail(p, IMG_ERR_OUT_OF_MEMORY, "could not grow the input buffer");
    return consume(p);
}

ImgStatus img_jpeg_progressive_end(ImgJpegProgressive *p) {
    if (!p) return IMG_ERR_USAGE;
    if (p->status != IMG_OK || p->finished) return p->status;
    p->ended = 1;
    return consume(p);
}

ImgStatus img_jpeg_progressive_start(ImgJpegProgressive *p, int scale_num, int *out_width, int *out_height) {
    if (!p || scale_num < 1 || scale_num > 8 || !out_width || !out_height) return IMG_ERR_USAGE;
    if (p->status != IMG_OK) return p->status;
    if (!p->header_ready || p->started) return IMG_ERR_USAGE;
    struct jpeg_decompress_struct *cinfo = &p->cinfo;
    if (setjmp(p->jump)) return p->status;
    // jpeg_read_header reset these to defaults.
    cinfo->buffered_image = TRUE;
    // Smoothing softens the blocks of early scans. At 1/8 the 1x1 IDCT reads only the DC,
    // which is then the exact block average; smoothing would only blur it, at 3x the cost.
    cinfo->do_block_smoothing = scale_num > 1;
    cinfo->scale_num = (unsigned)scale_num;
    cinfo->scale_denom = 8;
    int cmyk = cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK;
    cinfo->out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    jpeg_start_decompress(cinfo); // in buffered-image mode this reads no input, so cannot suspend
    p->started = 1;
    if (cinfo->output_components != 4)
        return fail(p, IMG_ERR_CORRUPT, "unexpected output components: %d", cinfo->output_components);
    *out_width = (int)cinfo->output_width;
    *out_height = (int)cinfo->output_height;
    return consume(p);
}

ImgStatus img_jpeg_progressive_render(ImgJpegProgressive *p, uint8_t *buffer, size_t stride, size_t capacity, int *out_scans) {
    if (!p || !buffer) return IMG_ERR_USAGE;
    if (p->status != IMG_OK) return p->status;
    if (!p->started || p->completed < 1) return IMG_ERR_USAGE;
    struct jpeg_decompress_struct *cinfo = &p->cinfo;
    size_t row_bytes = (size_t)cinfo->output_width * 4, rows = cinfo->output_height;
    if (stride < row_bytes || capacity < row_bytes || (capacity - row_bytes) / stride < rows - 1) return IMG_ERR_USAGE;
    if (setjmp(p->jump)) return p->status;
    // The target scan is behind input's scan number (or input is at EOI), so libjpeg's
    // input/output interlock never asks for data; a suspension here would be a bug,
    // reported rather than returning a half-drawn picture.
    if (!jpeg_start_output(cinfo, p->completed)) goto suspended;
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW pointers[16];
        JDIMENSION first = cinfo->output_scanline, count = cinfo->output_height - first;
        if (count > 16) count = 16;
        for (JDIMENSION i = 0; i < count; i++) pointers[i] = buffer + (size_t)(first + i) * stride;
        if (jpeg_read_scanlines(cinfo, pointers, count) == 0) goto suspended;
    }
    if (!jpeg_finish_output(cinfo)) goto suspended;
    if (out_scans) *out_scans = cinfo->output_scan_number;
    return IMG_OK;
suspended:
    return fail(p, IMG_ERR_TRUNCATED, "render of scan %d stopped for input at row %u", p->completed, cinfo->output_scanline);
}

ImgJpegProgressiveState img_jpeg_progressive_state(const ImgJpegProgressive *p) {
    if (!p) return (ImgJpegProgressiveState){.status = IMG_ERR_USAGE};
    return (ImgJpegProgressiveState){
        .status = p->status, .header_ready = p->header_ready, .started = p->started,
        .completed_scans = p->completed, .finished = p->finished, .warnings = p->warnings,
        .output_width = p->started ? (int)p->cinfo.output_width : 0,
        .output_height = p->started ? (int)p->cinfo.output_height : 0,
    };
}

ImgStatus img_jpeg_progressive_info(const ImgJpegProgressive *p, ImgJpegInfo *info) {
    if (!p || !info || !p->header_ready) return IMG_ERR_USAGE;
    const struct jpeg_decompress_struct *cinfo = &p->cinfo;
    // Indexed by J_COLOR_SPACE, whose first six values are fixed by the libjpeg API.
    static const ImgJpegColorSpace spaces[] = {IMG_JPEG_UNKNOWN, IMG_JPEG_GRAY, IMG_JPEG_RGB,
                                               IMG_JPEG_YCBCR, IMG_JPEG_CMYK, IMG_JPEG_YCCK};
    unsigned space = (unsigned)cinfo->jpeg_color_space;
    *info = (ImgJpegInfo){
        .width = (int)cinfo->image_width, .height = (int)cinfo->image_height,
        .components = cinfo->num_components,
        .color_space = space < sizeof spaces / sizeof spaces[0] ? spaces[space] : IMG_JPEG_UNKNOWN,
        .progressive = cinfo->progressive_mode ? 1 : 0, .adobe_marker = cinfo->saw_Adobe_marker ? 1 : 0,
        .exif = p->exif, .exif_length = p->exif_length, .icc = p->icc, .icc_length = p->icc_length,
    };
    return IMG_OK;
}

const char *img_jpeg_progressive_message(const ImgJpegProgressive *p) { return p ? p->message : ""; }
