#!/usr/bin/env python3
"""libvips and Pillow anchors for `imagery-bench processing`, timed in one process.

Each operation runs on an image already decoded into memory, on one thread
(VIPS_CONCURRENCY=1; Pillow's filters are single-threaded), and prints one JSON object
of median milliseconds: {"vips": {op: ms}, "pillow": {op: ms}}. libvips is timed through
pyvips (`pip install pyvips`; it uses the system libvips), forcing evaluation into memory.
"""
import argparse
import json
import os
import statistics
import time

os.environ.setdefault("VIPS_CONCURRENCY", "1")


def median_ms(body, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        body()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("image", help="an 8-bit RGB PNG")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--sigmas", default="2,10,50")
    parser.add_argument("--crop", default="800x800")
    args = parser.parse_args()
    sigmas = [float(s) for s in args.sigmas.split(",")]
    crop_w, crop_h = (int(v) for v in args.crop.split("x"))
    result = {"vips": {}, "pillow": {}}

    try:
        import pyvips
        pyvips.cache_set_max(0)
        image = pyvips.Image.new_from_file(args.image, access="random").copy_memory()
        for sigma in sigmas:
            result["vips"][f"blur {sigma:g}"] = median_ms(lambda: image.gaussblur(sigma).copy_memory(), args.repeat)
            # vips' default kernel stops at 20% of the peak (7 taps at sigma 2); Imagery's and
            # the test references' reach 3 sigma (13 taps). This is vips at that accuracy.
            result["vips"][f"blur {sigma:g} 3-sigma"] = median_ms(
                lambda: image.gaussblur(sigma, min_ampl=0.011).copy_memory(), args.repeat)
        result["vips"]["sharpen"] = median_ms(lambda: image.sharpen(sigma=1).copy_memory(), args.repeat)
        result["vips"]["smartcrop"] = median_ms(
            lambda: image.smartcrop(crop_w, crop_h, interesting="entropy").copy_memory(), args.repeat)
        result["vips"]["smartcrop attention"] = median_ms(
            lambda: image.smartcrop(crop_w, crop_h, interesting="attention").copy_memory(), args.repeat)
    except ImportError:
        pass

    try:
        from PIL import Image, ImageFilter
        image = Image.open(args.image).convert("RGB")
        image.load()
        for sigma in sigmas:
            result["pillow"][f"blur {sigma:g}"] = median_ms(lambda: image.filter(ImageFilter.GaussianBlur(sigma)), args.repeat)
        result["pillow"]["sharpen"] = median_ms(
            lambda: image.filter(ImageFilter.UnsharpMask(radius=1, percent=100, threshold=0)), args.repeat)
    except ImportError:
        pass
    print(json.dumps(result))


if __name__ == "__main__":
    main()
