#!/usr/bin/env python3
"""The chart of `imagery-bench formats`: each format's total bytes at equal DSSIM against AVIF's,
and its median encode time against AVIF's, one group of bars per DSSIM target.

Usage: Benchmarks/scripts/chart_formats.py bench-out/formats-summary.tsv docs/bench-formats.png
"""
import csv
import sys

from PIL import Image, ImageDraw, ImageFont

NAMES = {"jpg": "JPEG", "webp": "WebP", "avif": "AVIF", "heic": "HEIC", "jxl": "JPEG XL (effort 4)"}


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    with open(sys.argv[1], newline="") as file:
        rows = list(csv.DictReader(file, delimiter="\t"))
    targets = sorted({row["target"] for row in rows}, key=float)
    font = ImageFont.load_default(size=15)
    small = ImageFont.load_default(size=13)
    left, bar, gap, width = 190, 20, 8, 900
    per_target = len([row for row in rows if row["target"] == targets[0]])
    height = 50 + len(targets) * (40 + per_target * (bar + gap))
    image = Image.new("RGB", (left + width + 40, height), "white")
    draw = ImageDraw.Draw(image)
    draw.text((10, 10), "Total bytes at equal DSSIM against AVIF (fewer is better), and median encode time against AVIF, photos at 800 px",
              fill="black", font=font)
    y = 45
    for target in targets:
        group = [row for row in rows if row["target"] == target]
        anchor = next(row for row in group if row["format"] == "avif")
        largest = max(float(row["bytes"]) for row in rows) / float(anchor["bytes"])
        draw.text((10, y), f"DSSIM {target}", fill="black", font=font)
        y += 26
        for row in group:
            ratio = float(row["bytes"]) / float(anchor["bytes"])
            time = float(row["median_ms"]) / float(anchor["median_ms"])
            draw.text((20, y + 2), NAMES.get(row["format"], row["format"]), fill="black", font=small)
            length = int(ratio / max(largest, 1.6) * (width - 300))
            colour = (150, 150, 150) if row["format"] == "avif" else (31, 119, 180)
            draw.rectangle([left, y, left + length, y + bar], fill=colour)
            short = f", {row['short']} short of the target" if row["short"] != "0" else ""
            draw.text((left + length + 8, y + 3), f"{ratio:.2f}x bytes, {time:.2f}x time ({float(row['median_ms']):.1f} ms){short}",
                      fill="black", font=small)
            y += bar + gap
        y += 14
    image.save(sys.argv[2])


if __name__ == "__main__":
    main()
