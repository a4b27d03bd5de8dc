// A thin C layer over librsvg 2.54 and cairo: load a document from memory with no base (so
// librsvg resolves no reference but `data:`), read its intrinsic size, render it into the
// caller's RGBA buffer. Swift never sees GLib or cairo types.
#ifndef CIMAGERYSVG_H
#define CIMAGERYSVG_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    IMG_SVG_OK = 0,
    /// librsvg refused the document; the message says why.
    IMG_SVG_INVALID = 1,
    /// Rendering failed (cairo's status or librsvg's error in the message).
    IMG_SVG_RENDER_FAILED = 2,
    IMG_SVG_USAGE = 3,
} ImgSvgStatus;

typedef struct {
    /// `width` and `height` in absolute units, converted to pixels at 96 dpi.
    int has_size;
    double width;
    double height;
    /// The root's `viewBox`, when it has one.
    int has_viewbox;
    double viewbox_width;
    double viewbox_height;
} ImgSvgSize;

typedef struct ImgSvgDocument ImgSvgDocument;

/// Parses `data` (which may be freed afterwards). `unlimited` lifts libxml2's parser limits
/// inside librsvg (RSVG_HANDLE_FLAG_UNLIMITED).
ImgSvgStatus img_svg_load(const uint8_t *data, size_t length, int unlimited, ImgSvgDocument **document,
                          char *message, size_t message_capacity);
void img_svg_size(const ImgSvgDocument *document, ImgSvgSize *size);
/// Renders the whole document fitted to `width` × `height` into `pixels` (zeroed by the
/// caller, `bytes_per_row` a multiple of 4): premultiplied R, G, B, A bytes.
ImgSvgStatus img_svg_render(ImgSvgDocument *document, uint8_t *pixels, int width, int height, int bytes_per_row,
                            char *message, size_t message_capacity);
void img_svg_free(ImgSvgDocument *document);

#endif
