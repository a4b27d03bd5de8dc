#!/usr/bin/env python3
"""Writes the BMP, ICO and CUR test files (and their ImageMagick references) into
Tests/ImageryCodecsTests/Resources, from two images already there: the rocket (public domain)
and the Debian logo (GPL-2+). ImageMagick writes the variants it can (BMP2, BMP3, bit fields,
palettes, RLE8); the rest are written here byte by byte (top-down rows, a zero fourth byte,
RLE4, an icon with a PNG and a masked 8-bit entry, a cursor, a header that lies).

Usage: scripts/make-bmp-ico-fixtures.py      (needs ImageMagick's convert and Pillow)
"""
import io
import struct
import subprocess
import tempfile
from pathlib import Path

from PIL import Image

OUT = Path(__file__).resolve().parents[1] / "Tests/ImageryCodecsTests/Resources"


def convert(*arguments):
    subprocess.run(["convert", *map(str, arguments)], check=True)


def bmp(width, height, bits, compression, body, palette=b"", info_height=None):
    info = struct.pack("<IiiHHIIiiII", 40, width, height if info_height is None else info_height, 1, bits, compression,
                       len(body), 2835, 2835, len(palette) // 4, 0)
    offset = 14 + len(info) + len(palette)
    return b"BM" + struct.pack("<IHHI", offset + len(body), 0, 0, offset) + info + palette + body


def main():
    work = Path(tempfile.mkdtemp())
    rocket, logo = work / "rocket.png", work / "logo.png"
    convert(OUT / "jpeg_small_base_rocket_640x427.jpg", "-resize", "64x43!", rocket)
    convert(OUT / "png_pal8_trns_debianlogo_256x256.png", "-resize", "48x48", logo)

    convert(rocket, f"BMP3:{OUT / 'bmp_24_rocket_64x43.bmp'}")
    convert(rocket, "-colors", "256", "-type", "Palette", "-compress", "None", f"BMP3:{OUT / 'bmp_pal8_rocket_64x43.bmp'}")
    convert(rocket, "-colors", "256", "-type", "Palette", "-compress", "RLE", f"BMP3:{OUT / 'bmp_rle8_rocket_64x43.bmp'}")
    convert(rocket, "-colors", "16", "-depth", "4", "-type", "Palette", f"BMP3:{OUT / 'bmp_pal4_rocket_64x43.bmp'}")
    convert(rocket, "-monochrome", f"BMP3:{OUT / 'bmp_pal1_rocket_64x43.bmp'}")
    convert(rocket, "-define", "bmp:subtype=RGB565", f"BMP:{OUT / 'bmp_565_rocket_64x43.bmp'}")
    convert(rocket, "-define", "bmp:subtype=RGB555", f"BMP:{OUT / 'bmp_555_rocket_64x43.bmp'}")
    convert(logo, f"BMP:{OUT / 'bmp_32_alpha_debianlogo_48x48.bmp'}")
    convert(rocket, f"BMP2:{OUT / 'bmp_core_rocket_64x43.bmp'}")

    image = Image.open(rocket).convert("RGB")
    width, height = image.size
    pixels = image.load()
    pad = (width * 3 + 3) // 4 * 4 - width * 3
    top_down = b"".join(b"".join(bytes((pixels[x, y][2], pixels[x, y][1], pixels[x, y][0])) for x in range(width)) + b"\0" * pad
                        for y in range(height))
    (OUT / "bmp_24_topdown_rocket_64x43.bmp").write_bytes(bmp(width, height, 24, 0, top_down, info_height=-height))
    zero_alpha = b"".join(bytes((pixels[x, y][2], pixels[x, y][1], pixels[x, y][0], 0)) for y in reversed(range(height)) for x in range(width))
    (OUT / "bmp_32_zeroalpha_rocket_64x43.bmp").write_bytes(bmp(width, height, 32, 0, zero_alpha))

    # RLE4: encoded runs of one index, absolute runs of up to eight, each line ended.
    quantized = image.quantize(16)
    indices, colours = quantized.load(), quantized.getpalette()[:48]
    data = bytearray()
    for y in reversed(range(height)):
        x = 0
        while x < width:
            run = 1
            while x + run < width and indices[x + run, y] == indices[x, y] and run < 255:
                run += 1
            if run >= 3:
                data += bytes((run, indices[x, y] << 4 | indices[x, y]))
                x += run
            elif width - x >= 3:
                count = min(8, width - x)
                values = [indices[x + i, y] for i in range(count)] + [0]
                packed = bytes(values[i] << 4 | values[i + 1] for i in range(0, count, 2))
                data += bytes((0, count)) + packed + (b"\0" if len(packed) % 2 else b"")
                x += count
            else:
                data += bytes((1, indices[x, y] << 4))
                x += 1
        data += b"\0\0"
    data += b"\0\1"
    palette = b"".join(bytes((colours[3 * i + 2], colours[3 * i + 1], colours[3 * i], 0)) for i in range(16))
    (OUT / "bmp_rle4_rocket_64x43.bmp").write_bytes(bmp(width, height, 4, 2, bytes(data), palette))

    # A header that claims 30000 x 30000 in a 200-byte file.
    info = struct.pack("<IiiHHIIiiII", 40, 30000, 30000, 1, 24, 0, 0, 2835, 2835, 0, 0)
    (OUT / "bmp_lies_claims_30000x30000.bmp").write_bytes(b"BM" + struct.pack("<IHHI", 200, 0, 0, 54) + info + b"\x7f" * 146)

    # An icon with a 48 px PNG entry and a 32 px 8-bit entry whose AND mask cuts the logo out,
    # and a cursor holding the latter.
    emblem = Image.open(logo).convert("RGBA")
    png = io.BytesIO()
    emblem.save(png, "PNG")
    small = emblem.resize((32, 32))
    alpha = small.load()
    paletted = small.convert("RGB").quantize(256)
    index, colours = paletted.load(), paletted.getpalette() + [0] * 768
    colour_rows = b"".join(bytes(index[x, y] for x in range(32)) for y in reversed(range(32)))
    mask_rows = b"".join(bytes(sum(0x80 >> (x % 8) for x in range(b * 8, b * 8 + 8) if alpha[x, y][3] < 128) for b in range(4))
                         for y in reversed(range(32)))
    palette = b"".join(bytes((colours[3 * i + 2], colours[3 * i + 1], colours[3 * i], 0)) for i in range(256))
    dib = struct.pack("<IiiHHIIiiII", 40, 32, 64, 1, 8, 0, 0, 0, 0, 256, 0) + palette + colour_rows + mask_rows
    entries = [(48, 32, png.getvalue()), (32, 8, dib)]
    directory, blobs = struct.pack("<HHH", 0, 1, len(entries)), b""
    for side, bits, blob in entries:
        directory += struct.pack("<BBBBHHII", side, side, 0, 0, 1, bits, len(blob), 6 + 16 * len(entries) + len(blobs))
        blobs += blob
    (OUT / "ico_png_bmp_debianlogo_48x48.ico").write_bytes(directory + blobs)
    (OUT / "cur_bmp_debianlogo_32x32.cur").write_bytes(struct.pack("<HHH", 0, 2, 1) + struct.pack("<BBBBHHII", 32, 32, 0, 0, 3, 3, len(dib), 22) + dib)

    # ImageMagick's own decodes, the references the tests compare with.
    for name in ["bmp_24_rocket_64x43.bmp", "bmp_pal8_rocket_64x43.bmp", "bmp_rle8_rocket_64x43.bmp", "bmp_pal4_rocket_64x43.bmp",
                 "bmp_pal1_rocket_64x43.bmp", "bmp_565_rocket_64x43.bmp", "bmp_555_rocket_64x43.bmp", "bmp_32_alpha_debianlogo_48x48.bmp",
                 "bmp_core_rocket_64x43.bmp", "bmp_24_topdown_rocket_64x43.bmp", "bmp_32_zeroalpha_rocket_64x43.bmp", "bmp_rle4_rocket_64x43.bmp",
                 "cur_bmp_debianlogo_32x32.cur"]:
        convert(OUT / name, "-alpha", "on", f"PNG32:{OUT / ('reference_' + name.rsplit('.', 1)[0] + '.png')}")
    convert(f"{OUT / 'ico_png_bmp_debianlogo_48x48.ico'}[0]", "-alpha", "on", f"PNG32:{OUT / 'reference_ico_png_bmp_debianlogo_48x48.png'}")


if __name__ == "__main__":
    main()
