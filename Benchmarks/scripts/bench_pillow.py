#!/usr/bin/env python3
"""Pillow anchor for `imagery-bench`: draft() + thumbnail() in one process.

Prints one JSON object: per-file median milliseconds (decode + resize + encode, in
memory, like Imagery's in-process figure) over --repeat runs, and writes each
thumbnail to --out (for the quality comparison) when --out is given.
"""
import argparse
import io
import json
import os
import statistics
import time

from PIL import Image


def thumbnail(data, size, fmt):
    image = Image.open(io.BytesIO(data))
    image.draft("RGB", (size, size))  # JPEG DCT scaling, like vips shrink-on-load
    image.thumbnail((size, size), Image.LANCZOS)
    if fmt == "JPEG" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    out = io.BytesIO()
    image.save(out, fmt, quality=85) if fmt == "JPEG" else image.save(out, fmt)
    return out.getvalue()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--format", default="JPEG")
    parser.add_argument("--out")
    args = parser.parse_args()
    blobs = {path: open(path, "rb").read() for path in args.files}
    times = {path: [] for path in args.files}
    for _ in range(args.repeat):
        for path, data in blobs.items():
            start = time.perf_counter()
            output = thumbnail(data, args.size, args.format)
            times[path].append((time.perf_counter() - start) * 1000)
            if args.out:
                name = os.path.splitext(os.path.basename(path))[0] + "." + args.format.lower()
                with open(os.path.join(args.out, name), "wb") as handle:
                    handle.write(output)
    print(json.dumps({path: statistics.median(values) for path, values in times.items()}))


if __name__ == "__main__":
    main()
