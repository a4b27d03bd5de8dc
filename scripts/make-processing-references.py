#!/usr/bin/env python3
"""Makes the processing references in Tests/ImageryCodecsTests/Resources (run once; the outputs are committed).

Independent of Imagery: libvips (Debian's libvips-tools, 8.14) for crops, rotations, flips,
pads, flatten and Gaussian blur (float precision); Pillow 13 for the unsharp mask and an
8x-supersampled circle mask. Run from anywhere in a clone:

    python3 scripts/make-processing-references.py
"""
import os, subprocess, tempfile
from PIL import Image, ImageDraw, ImageFilter

here = os.path.dirname(os.path.abspath(__file__))
res = os.path.join(here, "..", "Tests", "ImageryCodecsTests", "Resources")
def path(name): return os.path.join(res, name)
def vips(*args): subprocess.run(["vips", *args], check=True)

# Inputs: a 120x80 RGB crop of the rocket photo, and the logo at 100x100 with its alpha.
rocket = Image.open(path("jpeg_small_base_rocket_640x427.jpg")).convert("RGB").crop((260, 150, 380, 230))
rocket.save(path("reference_processing_rocket_120x80.png"))
logo = Image.open(path("png_rgba_logo_500x500.png")).convert("RGBA").crop((150, 150, 250, 250))
logo.save(path("reference_processing_logo_100x100.png"))
src = path("reference_processing_rocket_120x80.png")
alpha_src = path("reference_processing_logo_100x100.png")

# Crops: vips smartcrop with centre / low (top left) / high (bottom right) placement.
for name, interesting in [("centre", "centre"), ("low", "low"), ("high", "high")]:
    vips("smartcrop", src, path(f"reference_processing_crop_{name}_61x47.png"), "61", "47", "--interesting", interesting)
# Rotations (clockwise) and flips.
for angle in ["d90", "d180", "d270"]:
    vips("rot", src, path(f"reference_processing_rot_{angle}.png"), angle)
for direction in ["horizontal", "vertical"]:
    vips("flip", src, path(f"reference_processing_flip_{direction}.png"), direction)
# Pad: the image centred in 150x100 on opaque red; and to the north-east.
vips("gravity", src, path("reference_processing_pad_centre_151x101.png"), "centre", "151", "101",
     "--extend", "background", "--background", "255 0 0")
vips("gravity", src, path("reference_processing_pad_northeast_151x101.png"), "north-east", "151", "101",
     "--extend", "background", "--background", "255 0 0")
# Flatten the logo onto white.
vips("flatten", alpha_src, path("reference_processing_flatten_white.png"), "--background", "255 255 255")
# Gaussian blur, float precision, edges extended (vips embeds with copy before convolving).
for sigma in ["1", "2", "6"]:
    vips("gaussblur", src, path(f"reference_processing_blur_{sigma}.png"), sigma, "--precision", "float", "--min-ampl", "0.001")
# Unsharp mask: Pillow's radius is the Gaussian's sigma; percent 100 = amount 1; threshold 0.
rocket.filter(ImageFilter.UnsharpMask(radius=1, percent=100, threshold=0)).save(path("reference_processing_sharpen_1_1.png"))
# Circle: the inscribed circle of 80x80 (the centre square), drawn 8x larger and reduced.
scale = 8
mask = Image.new("L", (80 * scale, 80 * scale), 0)
ImageDraw.Draw(mask).ellipse((0, 0, 80 * scale, 80 * scale), fill=255)
mask = mask.reduce(scale)
circle = rocket.crop((20, 0, 100, 80)).convert("RGBA")
circle.putalpha(mask)
circle.save(path("reference_processing_circle_80x80.png"))
