#!/usr/bin/env python3
"""Writes the structural-similarity test images and prints scikit-image's SSIM for each, the
values StructuralSimilarityTests expects (Pillow and scikit-image; see CONTRIBUTING).

Usage: scripts/make-ssim-references.py   (from the repository root)

The original is the test bundle's rocket photo (public domain, SpaceX, from scikit-image),
resized to 200 x 134 by Pillow's Lanczos; the candidates are its JPEG at quality 30, decoded,
and a Gaussian blur of radius 1.5. The PNGs carry no ICC profile or chromaticity chunk, so every
decoder reads the same pixel values. SSIM is scikit-image's on BT.601 luma (unrounded), with
gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=255.
"""
import io
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter
from skimage.metrics import structural_similarity

RESOURCES = Path("Tests/ImageryCodecsTests/Resources")


def luma(image):
    return np.asarray(image, dtype=np.float64) @ np.array([0.299, 0.587, 0.114])


def save(image, name):
    # A new image from the pixels alone: Pillow would otherwise write the source's ICC profile.
    Image.fromarray(np.asarray(image)).save(RESOURCES / name, optimize=True)


original = Image.open(RESOURCES / "jpeg_small_base_rocket_640x427.jpg").convert("RGB").resize((200, 134), Image.LANCZOS)
buffer = io.BytesIO()
original.save(buffer, "JPEG", quality=30)
candidates = {
    "reference_ssim_rocket_jpeg_q30_200x134.png": Image.open(io.BytesIO(buffer.getvalue())).convert("RGB"),
    "reference_ssim_rocket_blur_200x134.png": original.filter(ImageFilter.GaussianBlur(1.5)),
}
save(original, "reference_ssim_rocket_200x134.png")
for name, image in candidates.items():
    save(image, name)
    value = structural_similarity(luma(original), luma(image), gaussian_weights=True, sigma=1.5,
                                  use_sample_covariance=False, data_range=255)
    print(f"{name}\t{float(value)!r}")
