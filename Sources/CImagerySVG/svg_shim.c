#include "CImagerySVG.h"

// Compiled only with the package trait that links the library (see Package.swift).
#ifdef IMAGERY_SVG

#include <cairo/cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

// librsvg's header pulls in GLib's, whose include directory is architecture-specific: a C
// target could only reach it through unsafe flags, and SwiftPM drops GLib's pkg-config flags
// with a warning. These are the few declarations this file uses, as librsvg 2.54's and
// GLib 2.74's headers give them (stable ABI: gboolean is int, gssize is ssize_t).
typedef int gboolean;
typedef struct _RsvgHandle RsvgHandle;
typedef struct _GInputStream GInputStream;
typedef struct _GFile GFile;
typedef struct _GCancellable GCancellable;
typedef struct {
    uint32_t domain;
    int code;
    char *message;
} GError;
typedef struct {
    double x;
    double y;
    double width;
    double height;
} RsvgRectangle;
typedef struct {
    double length;
    int unit;
} RsvgLength;
enum { RSVG_HANDLE_FLAGS_NONE = 0, RSVG_HANDLE_FLAG_UNLIMITED = 1 << 0 };

extern GInputStream *g_memory_input_stream_new_from_data(const void *data, ssize_t length, void (*destroy)(void *));
extern void g_object_unref(void *object);
extern void g_error_free(GError *error);
extern RsvgHandle *rsvg_handle_new_from_stream_sync(GInputStream *stream, GFile *base_file, int flags,
                                                    GCancellable *cancellable, GError **error);
extern void rsvg_handle_set_dpi(RsvgHandle *handle, double dpi);
extern gboolean rsvg_handle_get_intrinsic_size_in_pixels(RsvgHandle *handle, double *width, double *height);
extern void rsvg_handle_get_intrinsic_dimensions(RsvgHandle *handle, gboolean *has_width, RsvgLength *width,
                                                 gboolean *has_height, RsvgLength *height, gboolean *has_viewbox,
                                                 RsvgRectangle *viewbox);
extern gboolean rsvg_handle_render_document(RsvgHandle *handle, cairo_t *cr, const RsvgRectangle *viewport, GError **error);

struct ImgSvgDocument {
    RsvgHandle *handle;
};

static void copy_message(char *message, size_t capacity, const char *text) {
    if (message != NULL && capacity > 0) snprintf(message, capacity, "%s", text != NULL ? text : "");
}

ImgSvgStatus img_svg_load(const uint8_t *data, size_t length, int unlimited, ImgSvgDocument **document,
                          char *message, size_t message_capacity) {
    if (data == NULL || length == 0 || document == NULL) return IMG_SVG_USAGE;
    *document = NULL;
    copy_message(message, message_capacity, "");
    GInputStream *stream = g_memory_input_stream_new_from_data(data, (ssize_t)length, NULL);
    GError *error = NULL;
    // No base file: librsvg then loads nothing from outside the document but `data:` URLs.
    RsvgHandle *handle = rsvg_handle_new_from_stream_sync(
        stream, NULL, unlimited ? RSVG_HANDLE_FLAG_UNLIMITED : RSVG_HANDLE_FLAGS_NONE, NULL, &error);
    g_object_unref(stream);
    if (handle == NULL) {
        copy_message(message, message_capacity, error != NULL ? error->message : "librsvg could not load the document");
        if (error != NULL) g_error_free(error);
        return IMG_SVG_INVALID;
    }
    rsvg_handle_set_dpi(handle, 96);
    ImgSvgDocument *made = malloc(sizeof *made);
    if (made == NULL) {
        g_object_unref(handle);
        return IMG_SVG_USAGE;
    }
    made->handle = handle;
    *document = made;
    return IMG_SVG_OK;
}

void img_svg_size(const ImgSvgDocument *document, ImgSvgSize *size) {
    if (document == NULL || size == NULL) return;
    double width = 0, height = 0;
    size->has_size = rsvg_handle_get_intrinsic_size_in_pixels(document->handle, &width, &height) ? 1 : 0;
    size->width = width;
    size->height = height;
    gboolean has_viewbox = 0;
    RsvgRectangle viewbox = { 0, 0, 0, 0 };
    rsvg_handle_get_intrinsic_dimensions(document->handle, NULL, NULL, NULL, NULL, &has_viewbox, &viewbox);
    size->has_viewbox = has_viewbox ? 1 : 0;
    size->viewbox_width = viewbox.width;
    size->viewbox_height = viewbox.height;
}

ImgSvgStatus img_svg_render(ImgSvgDocument *document, uint8_t *pixels, int width, int height, int bytes_per_row,
                            char *message, size_t message_capacity) {
    if (document == NULL || pixels == NULL || width <= 0 || height <= 0
        || bytes_per_row < cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, width)) return IMG_SVG_USAGE;
    copy_message(message, message_capacity, "");
    cairo_surface_t *surface = cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_ARGB32, width, height, bytes_per_row);
    if (cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        copy_message(message, message_capacity, cairo_status_to_string(cairo_surface_status(surface)));
        cairo_surface_destroy(surface);
        return IMG_SVG_RENDER_FAILED;
    }
    cairo_t *context = cairo_create(surface);
    RsvgRectangle viewport = { 0, 0, width, height };
    GError *error = NULL;
    gboolean rendered = rsvg_handle_render_document(document->handle, context, &viewport, &error);
    cairo_status_t status = cairo_status(context);
    cairo_destroy(context);
    cairo_surface_flush(surface);
    cairo_surface_destroy(surface);
    if (!rendered || status != CAIRO_STATUS_SUCCESS) {
        copy_message(message, message_capacity,
                     error != NULL ? error->message : status != CAIRO_STATUS_SUCCESS ? cairo_status_to_string(status) : "librsvg could not render the document");
        if (error != NULL) g_error_free(error);
        return IMG_SVG_RENDER_FAILED;
    }
    // Cairo's ARGB32 is one native-endian word a pixel; Bitmap wants R, G, B, A bytes.
    for (int y = 0; y < height; y++) {
        uint8_t *row = pixels + (size_t)y * (size_t)bytes_per_row;
        for (int x = 0; x < width; x++) {
            uint32_t word;
            memcpy(&word, row + x * 4, 4);
            row[x * 4] = (uint8_t)(word >> 16);
            row[x * 4 + 1] = (uint8_t)(word >> 8);
            row[x * 4 + 2] = (uint8_t)word;
            row[x * 4 + 3] = (uint8_t)(word >> 24);
        }
    }
    return IMG_SVG_OK;
}

void img_svg_free(ImgSvgDocument *document) {
    if (document == NULL) return;
    g_object_unref(document->handle);
    free(document);
}

#endif
